/// One device of a team's app, as the test kit drives it: its sync engine, a local change, and
/// what it holds (SyncScope's).
public protocol SyncScopeTestDevice: Sendable {
    /// The device's sync engine; the kit sends and fetches with it.
    var syncEngine: CKSyncEngine { get async }
    /// Makes a change as the user would: save `value` under `id`, or delete `id`.
    func apply(_ change: SyncScopeTestKit.Change) async
    /// What the device holds, by ID: devices have converged when theirs are equal.
    func snapshot() async -> [String: String]
}
