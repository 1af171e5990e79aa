import Foundation

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
