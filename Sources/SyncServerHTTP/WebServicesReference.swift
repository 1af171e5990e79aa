import Foundation

/// The CloudKit Web Services API reference as the program carries it: the
/// DocC page `WebServicesAPI.md`, shipped as a resource, so that a user of
/// the binary reads it with `syncscope help api` (no source checkout needed).
public enum WebServicesReference {
    /// The page's Markdown, or `nil` when the program was installed without its resources.
    public static var markdown: String? {
        guard let url = Bundle.module.url(forResource: "WebServicesAPI", withExtension: "md") else { return nil }
        return try? String(contentsOf: url, encoding: .utf8)
    }
}
