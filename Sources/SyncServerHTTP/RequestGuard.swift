import SyncServerHost
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

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
