import Foundation
import SyncScenario
import SyncScopeAssets

/// Finds the scenario a person names: a file, or a lesson that SyncScope ships.
public enum ScenarioLocator {
    /// Parses the file at `name` when there is one (or `name` contains a
    /// `/`); otherwise the lesson of that name or number (see
    /// `AssetCatalog.lesson(named:)`), which diagnostics and transcripts
    /// call by its name, `lesson expired-token`, wherever it is installed
    /// (the file is inside the program: `syncscope lessons NAME` prints it).
    public static func load(_ name: String) throws(ScenarioFileError) -> Scenario {
        if FileManager.default.fileExists(atPath: name) || name.contains("/") {
            return try ScenarioParser.parse(fileAt: URL(fileURLWithPath: name))
        }
        if let url = AssetCatalog.lesson(named: name) {
            // Diagnostics and transcripts name a lesson the same way wherever it is installed.
            let display = "lesson " + AssetCatalog.shortName(of: url.deletingPathExtension().lastPathComponent)
            guard let data = try? Data(contentsOf: url), let yaml = String(data: data, encoding: .utf8) else {
                throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
                    .error, at: SourceLocation(file: display, line: 0, column: 0), "cannot read the lesson file")])
            }
            return try ScenarioParser.parse(yaml: yaml, fileName: display)
        }
        let lessons = AssetCatalog.lessons().map { AssetCatalog.shortName(of: $0.name) }
        var hints: [String] = []
        if let match = Suggestions.closest(to: name, in: lessons), match != name { hints.append("did you mean '\(match)'?") }
        if !lessons.isEmpty { hints.append("lessons: \(lessons.joined(separator: ", ")); see `syncscope lessons`") }
        throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
            .error, at: SourceLocation(file: name, line: 0, column: 0), "no such file, and no lesson of that name",
            hint: hints.isEmpty ? nil : hints.joined(separator: "; "))])
    }
}
