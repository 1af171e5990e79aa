import SyncCore
import SyncClient

/// What a lesson command did, with what the lesson looks like after it.
public struct LessonOutcome: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Step `step` (0-based) ran; `summary` is what the outline called it.
        case ranStep(step: Int, summary: String, result: LessonStepResult)
        /// Enter after the last step: nothing ran.
        case alreadyOver
        /// The world was built again; nothing ran yet.
        case restarted
        /// The world was built again and its first `stepsRun` steps ran.
        case wentTo(stepsRun: Int)
        /// The world could not be built again (`reason`).
        case rebuildFailed(reason: String)
    }

    public var kind: Kind
    public var stepCount: Int
    /// The device the latest step acted on, which the screen follows.
    public var stepDevice: String?
    /// The panes the latest step changed, highlighted for a moment.
    public var touched: Set<LessonPane>
    public var isFinished: Bool
    /// Real time when the step ended (the highlight counts from it).
    public var now: Milliseconds

    public init(
        _ kind: Kind, stepCount: Int, stepDevice: String? = nil, touched: Set<LessonPane> = [], isFinished: Bool = false, now: Milliseconds = 0
    ) {
        self.kind = kind
        self.stepCount = stepCount
        self.stepDevice = stepDevice
        self.touched = touched
        self.isFinished = isFinished
        self.now = now
    }
}
