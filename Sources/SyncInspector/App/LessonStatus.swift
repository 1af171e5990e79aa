import SyncCore
import SyncClient
import SyncWorlds

/// The lesson as the lesson pane shows it.
public struct LessonStatus: Hashable, Sendable {
    public var title: String
    public var stepsRun: Int
    public var stepCount: Int
    public var narrative: String?
    public var lastStep: [String]
    public var nextStep: String?
    public var failure: String?
    /// One line per step.
    public var outline: [String] = []
    /// Checks run so far.
    public var checks: [LessonCheck] = []
    public var isFinished: Bool { stepsRun >= stepCount }
}
