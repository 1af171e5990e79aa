import Foundation
import Logging
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// A throwaway server in this process, on a free loopback port, for `bench --http`.
/// It keeps its journal in a temporary data folder, as `syncscope serve`
/// does by default: every save is committed before it is answered.
enum InProcessHTTPServer {
    static let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-bench-\(getpid())-\(UUID().uuidString)")

    /// The server, and the signer of a server-to-server key it takes (for the signed-request figure).
    static func start() async throws -> (url: URL, token: String, user: String, signer: ServerKeySigner, task: Task<Void, any Error>) {
        let key = ServerKeySigner.newKey(keyID: "bench-key")
        var options = ServeOptions(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, users: ["bench"], coalescingWindow: 0, quiet: true)
        options.serverKeys = ["bench-key": key.publicKeyPEM]
        let host = try await ServerHost.start(options: options)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let logger = Logging.Logger(label: "bench")
        let task = Task {
            try await SyncScopeHTTPServer(host: host, logger: logger).run { port in continuation.yield(port) }
        }
        var port: Int?
        for await found in ports {
            port = found
            break
        }
        guard let port, let url = URL(string: "http://127.0.0.1:\(port)"), let account = host.users.first else {
            throw BenchmarkError("the in-process server did not start")
        }
        return (url, account.webAuthToken, account.name, key.signer, task)
    }
}
