import SyncServerHost
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import HTTPTypes
import NIOCore
import SyncCore

/// Answers every request, its cross-cutting concerns one type each, in
/// this order: the path's one spelling (``CanonicalPath``), the method (GET
/// or POST), the route (``WebServicesRoute/resolve(_:)``, once), the caller
/// (``Authentication``), the body's content type (``ContentTypeCheck``), the
/// device (``DeviceOwnership``), then the route: the long-poll, the OpenAPI
/// document, or the call handed to the host through the fault plan
/// (``FaultLayer``), its body read up to the limit; and one log line
/// (``RequestLog``) and one event in the feed (``ServerEventFeed``). The
/// feed's own routes (``EventFeedRoutes``) are answered from the feed. The connection limits act below, on the channel
/// (``ConnectionLimits``).
struct APIResponder: HTTPResponder {
    typealias Context = ServeRequestContext

    let host: ServerHost
    let log: RequestLog
    let authentication: Authentication
    let devices: DeviceOwnership
    let faults: FaultLayer
    let feedRoutes: EventFeedRoutes
    let maxBodyBytes: Int
    let limits: ConnectionLimits

    init(host: ServerHost, logger: Logger, quiet: Bool, maxBodyBytes: Int, limits: ConnectionLimits) {
        self.host = host
        log = RequestLog(logger: logger, quiet: quiet, logInspectorReads: host.options.logInspectorReads)
        feedRoutes = EventFeedRoutes(feed: host.events)
        authentication = Authentication(host: host)
        devices = DeviceOwnership(host: host)
        faults = FaultLayer(host: host)
        self.maxBodyBytes = maxBodyBytes
        self.limits = limits
    }

    static let deviceHeader = HTTPField.Name("X-SyncScope-Device")!
    static let jsonContentType = "application/json; charset=utf-8"
    /// The headers of a 200 answer that is not a long-poll's.
    static let jsonHeaders: HTTPFields = [.contentType: jsonContentType]

    func respond(to request: Request, context: ServeRequestContext) async throws -> Response {
        // For the log line and the feed's event only.
        let started = log.quiet && !host.events.isRecording ? nil : ContinuousClock.now
        let method = request.method.rawValue
        // What the log line shows (cut to 200 characters when it is written).
        var shownPath = request.uri.path
        var caller = Identity.anonymous
        let requestHeaders = RequestHeaders(request.headers)
        let device = requestHeaders.device
        var answer: APIAnswer
        var route: WebServicesRoute?
        var body = Data()
        var poll: ServerHost.PollResult?
        var faulted: ServerHost.FaultedAnswer?
        /// The body of a signed request, read before its caller is known.
        var signedBody: Data?
        do {
            let (parts, path) = try CanonicalPath.parse(shownPath)
            shownPath = path
            if case .route(let found) = WebServicesRoute.resolve(parts) { route = found } else { route = nil }
            guard method == "GET" || method == "POST" else {
                throw Refusal(
                    status: 405,
                    CloudError(.invalidArguments, "The API takes GET and POST, not \(method.prefix(20)); \(path) answers \(route?.methods.names ?? "POST")."))
            }
            if case .document? = route?.handling {
                // The API's document is public: no credentials needed, none read.
                guard method == "GET" else { throw Refusal(status: 405, CloudError(.invalidArguments, "\(path) takes GET, not \(method).")) }
                answer = APIAnswer(body: OpenAPIDocument.json)
            } else {
                // The query is parsed once; the headers are read in one pass (``RequestHeaders``).
                let query = request.uri.queryParameters
                let queryToken = query.isEmpty ? nil : query["ckWebAuthToken"].map(String.init)
                let authorization = requestHeaders.authorization
                if requestHeaders.serverKeyID != nil {
                    // A signature covers the body: it is read first.
                    let body = try await readBody(request)
                    signedBody = body
                    caller = try authentication.identifySigned(requestHeaders, body: body, subpath: request.uri.path, parts: parts, now: Date())
                } else {
                    do { caller = try authentication.identify(queryToken: queryToken, authorization: authorization) } catch {
                        // A token this node does not know may belong to a user another node (on a
                        // shared journal) added just now: catch up, then ask again.
                        try? await host.catchUp()
                        caller = try authentication.identify(queryToken: queryToken, authorization: authorization)
                    }
                }
                // The server admin reads a user's databases as that user (an inspector on the server).
                if let user = requestHeaders.readAs { caller = try authentication.reading(as: user, caller: caller, route: route) }
                // A route of raw bytes (an asset upload URL) takes them as they are (any content type).
                if route?.body?.isRaw != true { try ContentTypeCheck.check(requestHeaders, caller: caller) }
                try devices.check(device, caller: caller)
                if parts.first == "internal" {
                    answer = .notFound("There is no '\(path)'; the API lives under /database/1/, /device/1/ and /admin/1/.")
                } else if case .eventFeed? = route?.handling {
                    guard caller == .serverAdmin else { throw Refusal(status: 403, EventFeedRoutes.adminOnly) }
                    if method == "POST" { body = try await readBody(request) }
                    answer = try await feedRoutes.answer(route?.operation ?? "", method: method, query: request.uri.queryParameters, body: body)
                } else if case .longPoll? = route?.handling {
                    guard method == "GET" else {
                        throw Refusal(status: 405, CloudError(.invalidArguments, "The webcourierURL takes GET, not \(method)."))
                    }
                    let result = try await pollWebcourier(token: parts[5], request: request, caller: caller, context: context)
                    answer = result.answer
                    poll = result
                } else {
                    if let signedBody { body = signedBody } else { body = try await readBody(request) }
                    var parameters: [String: String] = [:]
                    for (key, value) in query { parameters[String(key)] = String(value) }
                    let result = await faults.perform(
                        APICall(
                            method: method, path: path, body: body, user: caller.user, deviceID: device, isServerAdmin: caller == .serverAdmin,
                            parameters: parameters))
                    answer = result.answer
                    faulted = result
                }
            }
        } catch let refusal as Refusal {
            answer = .error(refusal.error, status: refusal.status)
        } catch let error as CloudError {
            answer = .error(error, status: error.code == .quotaExceeded ? 413 : nil)
        } catch {
            answer = .error(CloudError(.invalidArguments, "The request could not be read: the connection failed or the body is malformed."))
        }
        if let started {
            // A webcourierURL is a credential: the log and the feed show it without its secret part, whatever the answer.
            // (The search is for a path no route took; a resolved route says itself whether it is the long-poll.)
            let isCourierPath = route.map { $0.handling.isLongPoll } ?? shownPath.contains("/webcourier/")
            if isCourierPath { shownPath = Self.withoutSecret(shownPath) }
            let elapsed = ContinuousClock.now - started
            // A watcher's reads of the feed are an inspector's, and never events of their own.
            let isInspector = requestHeaders.inspector != nil || route?.handling.isEventFeed == true
            if log.logs(inspector: isInspector) {
                log.write(
                    RequestLog.Entry(
                        method: method, path: shownPath, caller: caller, device: device, tokenIn: answer.tokenIn, tokenOut: answer.tokenOut,
                        status: answer.status, errorCode: answer.status == 200 ? nil : answer.wireError?.serverErrorCode,
                        elapsed: elapsed, note: faulted?.note))
            }
            if host.events.isRecording, route?.handling.isEventFeed != true {
                host.events.record(ServerEvent(time: SystemClock().now(), kind: .request(RequestEvent(
                    method: method, path: shownPath, operation: route?.operation, user: caller.user, isServerAdmin: caller == .serverAdmin, device: device,
                    userAgent: requestHeaders.userAgent, isInspector: isInspector, tokenIn: answer.tokenIn, tokenOut: answer.tokenOut,
                    status: answer.status, latency: elapsed, fault: faulted?.note, requestBody: body, answerBody: answer.body,
                    bodyIsJSON: route?.body.map { !$0.isRaw } ?? false, changes: answer.changes))))
            }
        }
        if let dropped = FaultLayer.response(for: faulted) { return dropped }
        let status = HTTPResponse.Status(code: answer.status)
        // The common answer: a JSON body and nothing else to say in the headers.
        if poll == nil, answer.status == 200 {
            return Response(status: status, headers: Self.jsonHeaders, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        var headers = HTTPFields()
        // A long-poll whose time is up with nothing waiting answers an empty body, as Apple's web courier does.
        if poll == nil || !answer.body.isEmpty { headers.append(HTTPField(name: .contentType, value: Self.jsonContentType)) }
        // The route's own methods when the path names one; else the API's.
        if answer.status == 405 { headers.append(HTTPField(name: .allow, value: route?.methods.allowHeader ?? "GET, POST")) }
        if let retryAfter = answer.wireError?.retryAfter { headers.append(HTTPField(name: .retryAfter, value: String(Int(retryAfter.rounded(.up))))) }
        guard let poll, !poll.notificationIDs.isEmpty else {
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        // A notification stays the device's until it acknowledges it; an
        // answer that cannot be written whole puts it back at once.
        let written = answer.body
        let host = self.host
        let presence = limits.presence(for: context.channel)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: written.count) { writer in
                // A client gone before the answer is written gets nothing: the notifications wait.
                if presence?.isGone == true {
                    host.finishPoll(poll, written: false)
                    throw CancellationError()
                }
                do {
                    try await writer.write(ByteBuffer(bytes: written))
                    try await writer.finish(nil)
                } catch {
                    host.finishPoll(poll, written: false)
                    throw error
                }
                host.finishPoll(poll, written: true)
            })
    }

    private func readBody(_ request: Request) async throws -> Data {
        var collected = Data()
        for try await buffer in request.body {
            guard collected.count + buffer.readableBytes <= maxBodyBytes else {
                throw CloudError(
                    .quotaExceeded,
                    "The request body is larger than \(maxBodyBytes / (1024 * 1024)) MB; send fewer or smaller operations per request. Nothing was applied.")
            }
            collected.append(contentsOf: buffer.readableBytesView)
        }
        return collected
    }

    /// `GET /device/1/{container}/{environment}/webcourier/{token}?timeout=S&lastNotificationID=ID`.
    /// The URL is the credential, as with Apple (CloudKit JS polls it with
    /// nothing else): no credentials or its creator's; the server admin's
    /// are no user's, and get what another user's get (404).
    private func pollWebcourier(token: String, request: Request, caller: Identity, context: ServeRequestContext) async throws -> ServerHost.PollResult {
        let user: String?
        switch caller {
        case .anonymous: user = nil
        case .user(let name): user = name
        case .serverAdmin, .serverKey: user = ""
        }
        var timeout = 30.0
        if let text = request.uri.queryParameters["timeout"] {
            guard let value = Double(String(text)), value.isFinite, value >= 0 else {
                throw CloudError(.invalidArguments, "timeout must be a number of seconds, 0 or more; got '\(text.prefix(40))'.")
            }
            timeout = min(value, 300)
        }
        let last = request.uri.queryParameters["lastNotificationID"].map(String.init)
        if let last, last.utf8.count > 255 {
            throw CloudError(.invalidArguments, "lastNotificationID is longer than any notification ID (255 bytes at most).")
        }
        return await host.poll(
            webcourierToken: token, caller: user, timeout: .milliseconds(Int64(timeout * 1000)), lastNotificationID: last,
            presence: limits.presence(for: context.channel))
    }

    /// A webcourierURL's path as the log shows it: the secret part of the
    /// segment after `/webcourier/` (after its last dot) cut to its first
    /// four characters, whatever follows the segment.
    static func withoutSecret(_ path: String) -> String {
        guard let marker = path.range(of: "/webcourier/") else { return path }
        let segmentEnd = path[marker.upperBound...].firstIndex(of: "/") ?? path.endIndex
        guard let dot = path[marker.upperBound..<segmentEnd].lastIndex(of: ".") else { return path }
        let secret = path[path.index(after: dot)..<segmentEnd]
        guard secret.count > 4 else { return path }
        return path[...dot] + secret.prefix(4) + "…" + path[segmentEnd...]
    }
}
