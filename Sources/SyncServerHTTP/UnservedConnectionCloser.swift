import NIOCore
import NIOHTTPTypes
import Synchronization

/// Finishes a connection the server accepted but never took to serve.
///
/// Hummingbird accepts connections through NIO's async server channel: each
/// accepted connection waits in a stream until the server takes it and runs
/// it, which finishes its response writer when done. A connection accepted
/// as the server stops is never taken, and NIO traps when an unfinished
/// writer is released (swift-nio issue 2637). This handler holds the
/// connection until it closes; if the server never took it, it finishes it
/// then. The server closes every connection still open when it stops.
final class UnservedConnectionCloser: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPRequestPart

    private let connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
    private let served = Atomic<Bool>(false)

    init(_ connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>) {
        self.connection = connection
    }

    /// The server has taken the connection: finishing it is the server's.
    func markServed() {
        served.store(true, ordering: .releasing)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guard !served.load(ordering: .acquiring) else { return }
        let connection = self.connection
        Task { try? await connection.executeThenClose { _, _ in } }
    }
}
