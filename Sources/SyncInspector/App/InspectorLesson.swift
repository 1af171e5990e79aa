import SyncCore
import SyncClient
import SyncWorlds

/// A lesson the inspector plays step by step: Enter runs the next step, `p`
/// steps back, `b` starts again.
///
/// The inspector does not run scenarios itself: whatever plays the lesson
/// (`LessonSession` in SyncInspectorWorlds, on the scenario runner) conforms,
/// and the inspector reads it and asks it for steps through this protocol.
public protocol InspectorLesson: AnyObject {
    /// The lesson's title, as the lesson pane heads it.
    var title: String { get }
    /// The world the lesson's steps act on (a restart replaces it: see ``onRestart``).
    var world: SyncWorld { get }
    var stepCount: Int { get }
    /// How many steps ran.
    var stepsRun: Int { get }
    var isFinished: Bool { get }
    /// The latest narrative text.
    var narrative: String? { get }
    /// What the latest step did, one line each.
    var lastStep: [String] { get }
    /// What the latest check found different, if it did not hold.
    var failureMessage: String? { get }
    /// Every check run so far.
    var checks: [LessonCheck] { get }
    /// One line per step.
    var outline: [String] { get }
    /// "fetch: Mac fetches…": the next step, or `nil` at the end.
    var nextStepSummary: String? { get }
    /// The device the latest step acted on (for a check: the device it examined).
    var lastStepDevice: String? { get }
    /// The panes the latest step changed.
    var lastTouched: Set<LessonPane> { get }
    /// Called with the new world when the lesson built its world again.
    var onRestart: ((SyncWorld) -> Void)? { get set }
    /// Called for every event of the lesson's world (the lesson watches its world itself).
    var eventObserver: ((WorldEvent) -> Void)? { get set }

    /// The code the current step stands for (see ``LessonCode``).
    var code: LessonCode? { get }
    /// The question of the current `ask:` step.
    var question: LessonQuestion? { get }
    /// The presenter's note for the current step.
    var note: String? { get }

    /// Every token `device` received, oldest first (the lesson's own fetch steps included).
    func tokenReceipts(for device: SyncDevice) -> [TokenReceipt]
    /// Runs the next step.
    func runNextStep() async -> LessonStepResult
    /// Throws the world away and builds it again: the next step is the first.
    func restart() throws
    /// Rebuilds the world and runs the first `stepsRun` steps again.
    func goTo(stepsRun: Int) async throws
}

extension InspectorLesson {
    public var code: LessonCode? { nil }
    public var question: LessonQuestion? { nil }
    public var note: String? { nil }
}
