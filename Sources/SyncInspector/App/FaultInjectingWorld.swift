import SyncCore
import SyncClient
import SyncWorlds

/// A world the inspector's faults overlay (`!`) can inject faults into.
/// A world that is not one (a device on a real server) says so in a sentence.
public protocol FaultInjectingWorld: AnyObject {
    /// Adds one rule; it applies from now.
    func injectFault(_ rule: FaultRule)
    /// Removes every rule.
    func clearInjectedFaults()
}
