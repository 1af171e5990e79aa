import SyncCore
import SyncServer
import SyncWorlds

extension Simulation {
    /// Adds fault rules to the server; returns their numbers. They apply from
    /// now, on the virtual clock, with the world's seed.
    @discardableResult
    public func addFaults(_ plan: FaultPlan) -> [Int] {
        let ids = server.addFaults(plan)
        for rule in plan.rules { note("fault on: \(rule)") }
        return ids
    }

    /// Removes every fault rule (or those of these kinds).
    @discardableResult
    public func clearFaults(kinds: Set<FaultKind>? = nil) -> Int {
        let removed = server.clearFaults(kinds: kinds)
        note("faults cleared" + (kinds.map { " (\($0.sorted().map(\.rawValue).joined(separator: ", ")))" } ?? "") + ": \(removed) rule\(removed == 1 ? "" : "s")")
        return removed
    }

    /// Whether any fault rule is in force.
    public var faultsActive: Bool { !server.faultRules.isEmpty }

    /// Logs the server-call faults injected since the last call (push faults
    /// are logged with the push layer's events), each on its device.
    func logInjectedFaults() {
        for fault in server.drainInjectedFaults() where !fault.kind.isPush {
            let device = fault.deviceID.flatMap { id in devices.first { $0.deviceID == id }?.name }
            log(.fault(fault), device: device)
        }
    }
}
