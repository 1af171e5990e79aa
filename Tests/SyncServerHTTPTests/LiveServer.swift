import Foundation
import Logging
import SyncTestSupport
import Synchronization
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP

/// A ``SyncScopeHTTPServer`` in this process on a free loopback port.
final class LiveServer: Sendable {
    let host: ServerHost
    let http: SyncScopeHTTPServer
    let port: Int
    let task: Task<Void, any Error>

    convenience init(_ options: ServeOptions) async throws {
        var options = options
        options.port = 0
        options.quiet = true
        try await self.init(host: try await ServerHost.start(options: options))
    }

    /// Serves a host already started (on any store).
    init(host: ServerHost, logger: Logger = Logger(label: "syncscope")) async throws {
        let bound = Mutex<Int?>(nil)
        let server = SyncScopeHTTPServer(host: host, logger: logger)
        task = Task { try await server.run { port in bound.withLock { $0 = port } } }
        let deadline = ContinuousClock.now + .seconds(120)
        while bound.withLock({ $0 }) == nil {
            guard ContinuousClock.now < deadline else { throw RawError("the server did not start within 120 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
        self.host = host
        http = server
        port = bound.withLock { $0 } ?? 0
    }

    var raw: RawHTTP { RawHTTP(port: port) }

    var aliceToken: String { host.users.first { $0.name == "alice" }?.webAuthToken ?? "" }
    var bobToken: String { host.users.first { $0.name == "bob" }?.webAuthToken ?? "" }

    func stop() {
        task.cancel()
    }
}
