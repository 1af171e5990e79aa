import SyncCore
import SyncClient
import SyncWorlds

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
