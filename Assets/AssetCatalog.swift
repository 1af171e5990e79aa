import Foundation

/// The files SyncScope ships and loads at run time: the lessons (scenario
/// files with narrative) and the inspector's demo world.
///
/// They are resources of this module, copied as they are into its bundle, so
/// a lesson can be edited without rebuilding the code that runs it.
public enum AssetCatalog {
    /// The directory of lesson files, `nil` if the bundle lacks it.
    public static var lessonsDirectory: URL? {
        Bundle.module.url(forResource: "lessons", withExtension: nil)
    }

    /// The lessons, in order: each file's name without its extension
    /// (`01-first-fetch`) and its URL. Sorted by file name, so the number
    /// in front of each name gives the order.
    public static func lessons() -> [(name: String, url: URL)] {
        guard let directory = lessonsDirectory,
              let files = try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        else { return [] }
        return files
            .filter { ["yaml", "yml"].contains($0.pathExtension.lowercased()) }
            .map { (name: $0.deletingPathExtension().lastPathComponent, url: $0) }
            .sorted { $0.name < $1.name }
    }

    /// The lesson a person names: its file name (`01-first-fetch`, with or
    /// without `.yaml`), its name without the number (`first-fetch`), or its
    /// number (`1` or `01`). `nil` when no lesson matches.
    public static func lesson(named query: String) -> URL? {
        var wanted = query.trimmingCharacters(in: .whitespaces)
        for suffix in [".yaml", ".yml"] where wanted.lowercased().hasSuffix(suffix) {
            wanted = String(wanted.dropLast(suffix.count))
        }
        let all = lessons()
        if let exact = all.first(where: { $0.name == wanted }) { return exact.url }
        if let number = Int(wanted) {
            return all.first { lessonNumber(of: $0.name) == number }?.url
        }
        return all.first { shortName(of: $0.name) == wanted }?.url
    }

    /// `01-first-fetch` → 1; `nil` when the name does not start with a number.
    public static func lessonNumber(of name: String) -> Int? {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }

    /// `01-first-fetch` → `first-fetch`: the name without its number.
    public static func shortName(of name: String) -> String {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return name }
        let rest = name.dropFirst(digits.count)
        return rest.first == "-" ? String(rest.dropFirst()) : String(rest)
    }

    /// The inspector's demo world: `demo/demo.yaml`.
    public static var demoScenarioURL: URL? {
        Bundle.module.url(forResource: "demo", withExtension: "yaml", subdirectory: "demo")
    }
}
