import Foundation
import NIOCore
import NIOPosix

/// One keep-alive HTTP/1.1 connection that sends a request and reads its
/// whole answer as bytes, one request at a time, on an event-loop thread of
/// its own: a reader that is not the bottleneck, as ``LeanHTTPLoad`` is a
/// load generator that is not. The answer is read to its last byte; only its
/// body's last bytes are kept (a feed page's cursor is there), and an answer
/// other than 2xx fails the exchange.
final class LeanHTTPConnection: Sendable {
    /// How many of a body's last bytes an exchange keeps.
    static let tailBytes = 160

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let handler: NIOLoopBound<ExchangeHandler>

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, handler: NIOLoopBound<ExchangeHandler>) {
        self.group = group
        self.channel = channel
        self.handler = handler
    }

    /// Connects to `127.0.0.1:port`.
    static func connect(port: Int) async throws -> LeanHTTPConnection {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let loop = group.next()
            let channel = try await ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ExchangeHandler()) }
                }
                .connect(host: "127.0.0.1", port: port).get()
            let handler = try await loop.submit { NIOLoopBound(try channel.pipeline.syncOperations.handler(type: ExchangeHandler.self), eventLoop: loop) }.get()
            return LeanHTTPConnection(group: group, channel: channel, handler: handler)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Sends `request` (its whole bytes) and returns its answer's last body bytes (at most ``tailBytes``) once read to the end.
    func exchange(_ request: [UInt8]) async throws -> [UInt8] {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: [UInt8].self)
        let (handler, channel) = (self.handler, self.channel)
        loop.execute { handler.value.send(request, on: channel, answering: promise) }
        // Cancelled (a long-poll still waiting): the connection closes, which fails the exchange.
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    func close() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// The connection's one exchange at a time: the answer's bytes gather until
/// its `Content-Length` is read.
private final class ExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var pending: EventLoopPromise<[UInt8]>?
    private var buffer: ByteBuffer?

    func send(_ request: [UInt8], on channel: any Channel, answering promise: EventLoopPromise<[UInt8]>) {
        guard pending == nil else {
            promise.fail(BenchmarkError("a lean connection takes one request at a time"))
            return
        }
        pending = promise
        buffer = nil
        var out = channel.allocator.buffer(capacity: request.count)
        out.writeBytes(request)
        channel.writeAndFlush(out, promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.gather(&incoming)
        guard let promise = pending, let buffer else { return }
        let outcome = buffer.readableBytesView.withContiguousStorageIfAvailable { view -> Result<[UInt8], any Error>? in
            guard let answer = LeanHTTPLoad.answer(in: view) else { return nil }
            guard let status = answer.status, (200..<300).contains(status) else {
                return .failure(BenchmarkError("the server answered: \(LeanHTTPLoad.describe(answer, in: view))"))
            }
            let bodyStart = answer.headEnd + 4
            return .success(Array(view[max(bodyStart, answer.length - LeanHTTPConnection.tailBytes)..<answer.length]))
        } ?? .failure(BenchmarkError("an answer's bytes were not contiguous"))
        guard let outcome else { return }
        pending = nil
        self.buffer = nil
        promise.completeWith(outcome)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(BenchmarkError("the server closed the connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    private func fail(_ error: any Error) {
        guard let promise = pending else { return }
        pending = nil
        promise.fail(error)
    }
}
