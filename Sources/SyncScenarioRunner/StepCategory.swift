import SyncCore
import SyncClient
import SyncScenario

/// What kind of step a transcript's step event begins.
public enum StepCategory: String, Sendable, Hashable {
    /// It does something.
    case action
    /// `say`.
    case narrative
    /// `expect`.
    case check
}
