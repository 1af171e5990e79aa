import SyncServerHost
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import HTTPTypes
import NIOCore
import SyncCore

/// `syncscope serve`: CloudKit Web Services (see <doc:WebServicesAPI>) over a
/// ``ServerHost``, with Hummingbird.
///
/// Rules every request meets before the API sees it:
/// - One spelling per path: doubled or trailing slashes, encoded slashes and
///   `.` or `..` segments are refused with 400, and nothing under
///   `/internal/` exists for the network.
/// - GET and POST only; HEAD, OPTIONS and the rest get 405 with a body.
/// - With valid credentials any body is read as JSON, whatever its content
///   type (Apple's clients send `text/plain`, curl its form type); without,
///   only `application/json`, so a cross-site form cannot change anything.
///   No CORS header is ever sent.
/// - Time limits on headers, bodies and idle connections, and a cap on open
///   connections and on open long-polls per device (503 with `retryAfter`).
public struct SyncScopeHTTPServer: Sendable {
    public let host: ServerHost
    let logger: Logger
    /// The connection cap, time limits and each connection's presence.
    let connections: ConnectionLimits

    public init(host: ServerHost, logger: Logger = Logger(label: "syncscope")) {
        self.host = host
        self.logger = logger
        connections = ConnectionLimits(options: host.options)
    }

    /// How many HTTP connections are open now.
    public var openConnections: Int { connections.openConnections }

    /// Serves until the task is cancelled. `onRunning` gets the port
    /// actually bound (useful with port 0).
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let options = host.options
        let limits = connections
        let responder = APIResponder(host: host, logger: logger, quiet: options.quiet, maxBodyBytes: options.maxBodyBytes, limits: limits)
        var silent = Logger(label: "hummingbird")
        silent.logLevel = .critical
        let host = self.host
        let idle = Duration.nanoseconds(Int64(options.idleTimeout * 1e9))
        let app = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits, idleTimeout: idle) },
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "syncscope"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
                host.setBaseURL("http://\(shownHost):\(port)")
                await onRunning(port)
            },
            logger: silent)
        // The listening socket is closed once `run` returns; a connection
        // accepted just before that may have no one to serve it.
        limits.start()
        defer { limits.stop() }
        try await app.run()
    }
}
