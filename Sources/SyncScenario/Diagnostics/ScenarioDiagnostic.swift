import Foundation

/// One problem in a scenario file, rendered the way a compiler does:
/// `lesson.yaml:12:5: error: unknown key 'resultLimit' in fetch; did you mean 'resultsLimit'?`
public struct ScenarioDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        /// The scenario cannot run.
        case error
        /// The scenario runs, but probably not as meant.
        case warning
    }

    public var severity: Severity
    public var location: SourceLocation
    /// What is wrong.
    public var message: String
    /// How to fix it, when there is something useful to say.
    public var hint: String?

    public init(_ severity: Severity, at location: SourceLocation, _ message: String, hint: String? = nil) {
        self.severity = severity
        self.location = location
        self.message = message
        self.hint = hint
    }

    /// `file:line:column: error: message; hint`.
    public var description: String {
        "\(location): \(severity.rawValue): \(message)" + (hint.map { "; \($0)" } ?? "")
    }

    /// The diagnostic followed by the source line it points at and a caret
    /// under the column, when `source` has that line.
    public func rendered(source: String?) -> String {
        guard let source, location.line > 0 else { return description }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line <= lines.count else { return description }
        let line = lines[location.line - 1].replacingOccurrences(of: "\r", with: "")
        // Columns count Unicode scalars; keep tabs so the caret lines up.
        let prefix = line.unicodeScalars.prefix(max(0, location.column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
        return description + "\n" + line + "\n" + prefix + "^"
    }
}
