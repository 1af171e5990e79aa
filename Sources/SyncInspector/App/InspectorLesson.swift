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

    /// Every token `device` received, oldest first (the lesson's own fetch steps included).
    func tokenReceipts(for device: SyncDevice) -> [TokenReceipt]
    /// Runs the next step.
    func runNextStep() async -> LessonStepResult
    /// Throws the world away and builds it again: the next step is the first.
    func restart() throws
    /// Rebuilds the world and runs the first `stepsRun` steps again.
    func goTo(stepsRun: Int) async throws
}

/// What one step of a lesson did, as the message line says it.
public struct LessonStepResult: Sendable, Hashable {
    /// A check that did not hold: the step's name and what differed.
    public var failure: (stepName: String, message: String)? {
        failedStep.map { ($0, failureText ?? "") }
    }
    private var failedStep: String?
    private var failureText: String?
    /// An error the step ended with, as the lesson expects.
    public var error: CloudError?
    /// The step was narrative (`say`): the person reads the lesson pane.
    public var isNarrative: Bool

    public init(failedStep: String? = nil, failureMessage: String? = nil, error: CloudError? = nil, isNarrative: Bool = false) {
        self.failedStep = failedStep
        self.failureText = failureMessage
        self.error = error
        self.isNarrative = isNarrative
    }
}

/// A world the inspector's faults overlay (`!`) can inject faults into.
/// A world that is not one (a device on a real server) says so in a sentence.
public protocol FaultInjectingWorld: AnyObject {
    /// Adds one rule; it applies from now.
    func injectFault(_ rule: FaultRule)
    /// Removes every rule.
    func clearInjectedFaults()
}

/// A check of a lesson, as the end screen lists it.
public struct LessonCheck: Hashable, Sendable {
    /// Index of the `expect` step.
    public var stepIndex: Int
    public var name: String
    public var line: Int
    /// What differed; `nil` when the check held.
    public var failure: String?

    public init(stepIndex: Int, name: String, line: Int, failure: String?) {
        self.stepIndex = stepIndex
        self.name = name
        self.line = line
        self.failure = failure
    }
}

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
