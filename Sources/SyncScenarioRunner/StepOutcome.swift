import SyncCore
import SyncClient
import SyncScenario

/// What one ``ScenarioRunner/runNextStep()`` did.
public struct StepOutcome: Sendable {
    public enum Status: Sendable, Hashable {
        /// The step ran (an action, or a check that held).
        case completed
        /// A check did not hold, or the step failed unexpectedly.
        case failed(ScenarioFailure)
        /// There was no step left to run.
        case endOfScenario
    }

    /// The step's position in ``Scenario/steps`` (`steps.count` at the end).
    public var index: Int
    /// `nil` at the end of the scenario.
    public var step: Step?
    public var status: Status
    /// What happened during the step, in order (the step's header first).
    public var events: [TranscriptEvent]
    /// The error the step ended with, expected or not (`nil`: it succeeded).
    public var error: CloudError?

    public var failure: ScenarioFailure? {
        if case .failed(let failure) = status { return failure }
        return nil
    }

    public var isEndOfScenario: Bool { status == .endOfScenario }
}
