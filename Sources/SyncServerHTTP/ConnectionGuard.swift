import SyncServerHost
import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// What every connection of one server shares: the connection cap, the
/// header and body time limits, and each connection's ``ClientPresence``.
final class ConnectionLimits: Sendable {
    let maxConnections: Int
    let headerTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let headerSeconds: Double
    let bodySeconds: Double
    private let open = Atomic<Int>(0)
    private let presences = Mutex<[ObjectIdentifier: ClientPresence]>([:])

    init(options: ServeOptions) {
        maxConnections = options.maxConnections
        headerSeconds = options.headerTimeout
        bodySeconds = options.bodyTimeout
        headerTimeout = .nanoseconds(Int64(options.headerTimeout * 1e9))
        bodyTimeout = .nanoseconds(Int64(options.bodyTimeout * 1e9))
    }

    /// Counts a new connection; returns the count with it.
    func opened() -> Int { open.add(1, ordering: .relaxed).newValue }

    func closed() { open.subtract(1, ordering: .relaxed) }

    var openConnections: Int { open.load(ordering: .relaxed) }

    func register(_ channel: any Channel) -> ClientPresence {
        let presence = ClientPresence()
        presences.withLock { $0[ObjectIdentifier(channel)] = presence }
        return presence
    }

    func presence(for channel: any Channel) -> ClientPresence? {
        presences.withLock { $0[ObjectIdentifier(channel)] }
    }

    func unregister(_ channel: any Channel) {
        _ = presences.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// HTTP/1.1 as Hummingbird's `HTTP1Channel` sets it up, with two guards
/// around the codec: ``RawConnectionGuard`` in front (the connection cap,
/// the header time limit, and answers written as raw bytes when the request
/// cannot be parsed) and ``RequestGuard`` behind it (the body time limit,
/// parse errors, the client closing its side). Idle kept-alive connections
/// are closed by Hummingbird's own `HTTPConnectionStateHandler`.
struct GuardedHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let idleTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits
        let idleTimeout = self.idleTimeout
        return channel.eventLoop.makeCompletedFuture {
            let raw = RawConnectionGuard(limits: limits, channel: channel)
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(raw)
            try operations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: .init())
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try operations.addHandler(RequestGuard(raw: raw, limits: limits))
            try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

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
        if open > limits.maxConnections {
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

/// Behind the HTTP codec, on request and response parts.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let raw: RawConnectionGuard
    let limits: ConnectionLimits
    private var responseUnderway = false
    /// When the body of the request under way must be in (a lazy timer, as for the headers).
    private var bodyDeadline: NIODeadline?
    private var bodyTimer: Scheduled<Void>?

    init(raw: RawConnectionGuard, limits: ConnectionLimits) {
        self.raw = raw
        self.limits = limits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            raw.headArrived()
            let deadline = NIODeadline.now() + limits.bodyTimeout
            bodyDeadline = deadline
            if bodyTimer == nil { scheduleBodyTimer(context, at: deadline) }
        case .body:
            break
        case .end:
            bodyDeadline = nil
        }
        context.fireChannelRead(data)
    }

    private func scheduleBodyTimer(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        bodyTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            bodyTimer = nil
            guard let deadline = bodyDeadline else { return }
            if deadline > .now() {
                scheduleBodyTimer(context, at: deadline)
                return
            }
            bodyDeadline = nil
            if responseUnderway {
                raw.close()
            } else {
                raw.respondAndClose(
                    status: 408, code: "BAD_REQUEST",
                    reason: "The request's body did not arrive in full within \(RawConnectionGuard.seconds(limits.bodySeconds)) of its headers; the connection is closed.")
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            responseUnderway = true
        case .body:
            break
        case .end:
            responseUnderway = false
            raw.awaitingHead = true
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { raw.presence.markGone() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        bodyTimer?.cancel()
        bodyTimer = nil
        bodyDeadline = nil
        if responseUnderway {
            raw.close()
        } else {
            raw.respondAndClose(status: parserError.status, code: "BAD_REQUEST", reason: parserError.reason)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyTimer?.cancel()
        bodyTimer = nil
        bodyDeadline = nil
    }
}

extension HTTPParserError {
    /// 400, or 431 for headers too large, 413 for a body that will not fit.
    var status: Int {
        switch self {
        case .headerOverflow: 431
        case .invalidMethod: 405
        default: 400
        }
    }

    /// What is wrong with the request, for a person.
    var reason: String {
        let what: String
        switch self {
        case .invalidChunkSize: what = "its chunked body is malformed (a chunk size is not a hexadecimal number)"
        case .invalidConstant, .lfExpected, .strictModeAssertion, .trailingGarbage:
            what = "its chunked body or its line endings are malformed"
        case .headerOverflow: what = "its headers are too large"
        case .invalidMethod: return "The API takes GET and POST; this request's method is not one HTTP knows. The connection is closed."
        case .invalidURL: what = "its request line has no valid path"
        case .invalidVersion: what = "its HTTP version is not HTTP/1.0 or HTTP/1.1"
        case .invalidHeaderToken: what = "a header name or value holds a character headers may not hold"
        case .invalidContentLength: what = "its Content-Length is not a number or disagrees with itself"
        case .unexpectedContentLength: what = "it has a Content-Length that does not fit its Transfer-Encoding"
        case .invalidCharactersUsed: what = "it holds characters HTTP does not allow there"
        case .invalidPath, .invalidQueryString, .invalidFragment, .invalidPort: what = "its URL is malformed"
        case .invalidHost: what = "its Host header is not valid"
        case .closedConnection, .invalidEOFState: what = "the connection closed in the middle of it"
        case .invalidStatus: what = "its status line is malformed"
        default: what = "it is not valid HTTP/1.1"
        }
        return "The request cannot be read: \(what). The connection is closed."
    }
}
