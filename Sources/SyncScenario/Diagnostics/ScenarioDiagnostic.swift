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

/// Every problem found in a scenario file before anything runs. Thrown by
/// ``ScenarioParser`` when at least one is an error; warnings come along.
public struct ScenarioFileError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Errors and warnings, in file order.
    public var diagnostics: [ScenarioDiagnostic]
    /// The file's text, to quote lines in ``rendered(showingSource:)``.
    public var source: String?

    public init(diagnostics: [ScenarioDiagnostic], source: String? = nil) {
        self.diagnostics = diagnostics
        self.source = source
    }

    public var errors: [ScenarioDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [ScenarioDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    /// One diagnostic per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }

    /// Like ``description``, with each diagnostic's source line and a caret
    /// (when `showingSource`), and a last line counting the errors.
    public func rendered(showingSource: Bool = true) -> String {
        var lines = diagnostics.map { showingSource ? $0.rendered(source: source) : $0.description }
        let count = errors.count
        lines.append(count == 1 ? "1 error" : "\(count) errors")
        return lines.joined(separator: "\n")
    }

    public var errorDescription: String? { description }
}
