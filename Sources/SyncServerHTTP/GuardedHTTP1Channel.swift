import SyncServerHost
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// HTTP/1.1 as Hummingbird's `HTTP1Channel` sets it up, with two guards
/// around the codec: ``RawConnectionGuard`` in front (the connection cap,
/// the header time limit, and answers written as raw bytes when the request
/// cannot be parsed) and ``RequestGuard`` behind it (the body time limit,
/// parse errors, the client closing its side). Idle kept-alive connections
/// are closed by Hummingbird's own `HTTPConnectionStateHandler`, and an
/// ``UnservedConnectionCloser`` lets a connection accepted as the server stops
/// be closed without a trap.
struct GuardedHTTP1Channel: HTTPChannelHandler {
    /// An accepted connection, and whether the server took it.
    struct Value: ServerChildChannelValue {
        let connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        let closer: UnservedConnectionCloser
        var channel: any Channel { connection.channel }
    }

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
            let connection = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            let closer = UnservedConnectionCloser(connection)
            try operations.addHandler(closer)
            return Value(connection: connection, closer: closer)
        }
    }

    func handle(value: Value, logger: Logger) async {
        value.closer.markServed()
        await handleHTTP(asyncChannel: value.connection, logger: logger)
    }
}
