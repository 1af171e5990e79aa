import SyncCore
import SyncClient

/// What a faults command did.
public enum FaultsOutcome: Hashable, Sendable {
    /// The rule is in force (the key already said which).
    case added(FaultRule)
    case cleared
    /// The world takes no faults from the inspector (a device on a real server).
    case notInjectable
}
