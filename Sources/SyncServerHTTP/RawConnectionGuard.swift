import SyncServerHost
import Foundation
import NIOCore

/// First in the pipeline, on raw bytes.
final class RawConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let limits: ConnectionLimits
    let presence: ClientPresence
    private let channel: any Channel
    private var context: ChannelHandlerContext?
    private var counted = false
    private var refused = false
    private var closing = false
    /// Between requests: the next byte starts a request's headers.
    var awaitingHead = true
    /// When the headers of the request under way must be in. The timer is
    /// lazy: one stays scheduled across requests and looks at the deadline
    /// when it fires, so a request costs no timer of its own.
    private var headerDeadline: NIODeadline?
    private var headerTimer: Scheduled<Void>?

    init(limits: ConnectionLimits, channel: any Channel) {
        self.limits = limits
        self.channel = channel
        presence = limits.register(channel)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { becameActive(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context)
        context.fireChannelActive()
    }

    private func becameActive(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        let open = limits.opened()
        if limits.isStopped {
            // Accepted as the server stopped: no one will serve it.
            close()
        } else if open > limits.maxConnections {
            refused = true
            respondAndClose(
                status: 503, code: "TRY_AGAIN_LATER",
                reason: "The server has \(limits.maxConnections) connections open, the most it takes; try again in a moment.", retryAfter: 1)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused, !closing else { return }
        if awaitingHead, headerDeadline == nil {
            let deadline = NIODeadline.now() + limits.headerTimeout
            headerDeadline = deadline
            if headerTimer == nil { scheduleHeaderTimer(context, at: deadline) }
        }
        context.fireChannelRead(data)
    }

    private func scheduleHeaderTimer(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        headerTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            headerTimer = nil
            guard let deadline = headerDeadline, let context = self.context else { return }
            if deadline > .now() {
                // A later request's headers: their own deadline.
                scheduleHeaderTimer(context, at: deadline)
                return
            }
            respondAndClose(
                status: 408, code: "BAD_REQUEST",
                reason: "The request's headers did not arrive in full within \(Self.seconds(limits.headerSeconds)); the connection is closed.")
        }
    }

    /// The request's head is parsed: its header time limit no longer runs.
    func headArrived() {
        awaitingHead = false
        headerDeadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
        self.context = nil
    }

    private func finish() {
        headerTimer?.cancel()
        headerTimer = nil
        headerDeadline = nil
        if counted {
            counted = false
            limits.closed()
        }
        presence.markGone()
        limits.unregister(channel)
    }

    /// Writes a whole answer as raw bytes (no response of the codec may be
    /// under way) and closes the connection.
    func respondAndClose(status: Int, code: String, reason: String, retryAfter: Double? = nil) {
        guard let context, !closing else { return }
        closing = true
        var error: [String: Any] = ["serverErrorCode": code, "reason": reason]
        if let retryAfter { error["retryAfter"] = retryAfter }
        let body = (try? JSONSerialization.data(withJSONObject: error, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(reason.utf8)
        let phrase = [400: "Bad Request", 405: "Method Not Allowed", 408: "Request Timeout", 431: "Request Header Fields Too Large", 503: "Service Unavailable"][status] ?? "Error"
        var head = "HTTP/1.1 \(status) \(phrase)\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: \(body.count)\r\nconnection: close\r\n"
        if let retryAfter { head += "retry-after: \(Int(retryAfter.rounded(.up)))\r\n" }
        if status == 405 { head += "allow: GET, POST\r\n" }
        head += "\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Closes without an answer (one is already under way).
    func close() {
        guard let context, !closing else { return }
        closing = true
        context.close(promise: nil)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) second\(value == 1 ? "" : "s")" : String(format: "%.1f seconds", value)
    }
}
