import Foundation
import SyncCore
import SyncServer

/// `serve --in-memory`: nothing is kept; a restart begins with a new state.
/// The engine step is the order, and a call is "durable" once stepped.
package final class VolatileStore: OneNodeStore {
    package init() {}

    package var name: String { "memory" }

    package func open(options: ServeOptions) async throws -> StoreOpening {
        var generator = SystemRandomNumberGenerator()
        return StoreOpening(
            seed: options.seed ?? UInt64.random(in: 1...UInt64.max, using: &generator),
            settings: ServerHost.Settings(retention: options.retention, coalescingWindow: options.coalescingWindow),
            adminToken: try ServerHost.loadOrMakeAdminToken(nil))
    }

    package func replay(after position: Int64, into host: ServerHost) async throws -> [String] { [] }

    package func perform(_ prepared: PreparedCall, on host: ServerHost) async -> StoreOutcome {
        host.step(prepared, delivering: true)
    }

    package func keep(_ prepared: PreparedCall, changed: Bool, at time: Milliseconds, _ state: inout ServerHost.State) -> Int64? { nil }

    package func checkpointNow(_ host: ServerHost) async {}

    package func stop(_ host: ServerHost) async -> String {
        _ = host.markStopped()
        return "nothing kept (in memory)"
    }

    package func abandon() async {}
    package func usersChanged(_ users: [UserAccount]) throws {}

}
