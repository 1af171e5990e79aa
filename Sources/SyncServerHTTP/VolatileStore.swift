import Foundation
import SyncCore
import SyncServer

/// `serve --in-memory`: nothing is kept; a restart begins with a new state.
/// The engine step is the order, and a call is "durable" once stepped.
final class VolatileStore: OneNodeStore {
    var name: String { "memory" }

    func open(options: ServeOptions) async throws -> StoreOpening {
        var generator = SystemRandomNumberGenerator()
        return StoreOpening(
            seed: options.seed ?? UInt64.random(in: 1...UInt64.max, using: &generator),
            settings: ServerHost.Settings(retention: options.retention, coalescingWindow: options.coalescingWindow),
            adminToken: try ServerHost.loadOrMakeAdminToken(nil))
    }

    func replay(after position: Int64, into host: ServerHost) async throws -> [String] { [] }

    func perform(_ prepared: PreparedCall, on host: ServerHost) async -> StoreOutcome {
        host.step(prepared, delivering: true)
    }

    func keep(_ prepared: PreparedCall, changed: Bool, at time: Milliseconds, _ state: inout ServerHost.State) -> Int64? { nil }

    func checkpointNow(_ host: ServerHost) async {}

    func stop(_ host: ServerHost) async -> String {
        _ = host.markStopped()
        return "nothing kept (in memory)"
    }

    func abandon() async {}
    func usersChanged(_ users: [UserAccount]) throws {}

}
