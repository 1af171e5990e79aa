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
    /// The code the current step stands for (the code pane).
    public var code: LessonCode?
    /// The question of the current `ask:` step.
    public var question: LessonQuestion?
    /// The presenter's note for the current step (presenter layout only).
    public var note: String?
    public var isFinished: Bool { stepsRun >= stepCount }
}
