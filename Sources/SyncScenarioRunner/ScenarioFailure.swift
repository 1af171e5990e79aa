import SyncCore
import SyncClient
import SyncScenario

/// Why a scenario run stopped being right: a check that did not hold, or a
/// step that failed when no `error` check expected it.
public struct ScenarioFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the file writes the step (for a check: the check's name).
    public var location: SourceLocation
    /// The step's name as the file writes it (`fetch`, `lastFetch`, …).
    public var stepName: String
    /// What differed, or what went wrong.
    public var message: String

    public init(location: SourceLocation, stepName: String, message: String) {
        self.location = location
        self.stepName = stepName
        self.message = message
    }

    /// `lesson.yaml:12:5: error: lastFetch failed: records: expected …, got …`.
    public var description: String {
        "\(location): error: \(stepName) failed: \(message)"
    }
}
