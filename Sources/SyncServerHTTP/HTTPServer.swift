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
/// - A body must be `application/json`; `text/plain` (which Apple's own
///   clients send) only with valid credentials, so a cross-site form cannot
///   change anything. No CORS header is ever sent.
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
        try await app.run()
    }
}

/// The request context: Hummingbird's, plus the connection, so a long-poll
/// can hear that its client went away.
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Who is calling.
enum Identity: Equatable {
    case anonymous
    case user(String)
    /// The server admin credential.
    case serverAdmin

    var user: String? {
        if case .user(let name) = self { return name }
        return nil
    }
}

/// Answers every request: checks its path, method and content type, signs
/// the caller in, reads the body (up to the limit), hands the call to the
/// host, and logs one line (never a token).
struct APIResponder: HTTPResponder {
    typealias Context = ServeRequestContext

    let host: ServerHost
    let logger: Logger
    let quiet: Bool
    let maxBodyBytes: Int
    let limits: ConnectionLimits

    static let deviceHeader = HTTPField.Name("X-SyncScope-Device")!
    static let jsonContentType = "application/json; charset=utf-8"
    /// The headers of a 200 answer that is not a long-poll's.
    static let jsonHeaders: HTTPFields = [.contentType: jsonContentType]

    func respond(to request: Request, context: ServeRequestContext) async throws -> Response {
        // For the log line only.
        let started = quiet ? nil : ContinuousClock.now
        let method = request.method.rawValue
        let rawPath = request.uri.path
        // What the log line shows (cut to 200 characters when it is written).
        var shownPath = rawPath
        var caller = Identity.anonymous
        let requestHeaders = RequestHeaders(request.headers)
        let device = requestHeaders.device
        var answer: APIAnswer
        var poll: ServerHost.PollResult?
        var tokenIn: ServerChangeToken?
        var tokenOut: ServerChangeToken?
        var faulted: ServerHost.FaultedAnswer?
        do {
            let (parts, path) = try Self.canonicalPath(rawPath)
            shownPath = path
            guard method == "GET" || method == "POST" else {
                throw Refusal(
                    status: 405,
                    CloudError(.invalidArguments, "The API takes GET and POST, not \(method.prefix(20)); \(path) answers \(Self.isWebcourier(parts) ? "GET" : "POST").")
                )
            }
            // The query is parsed once; the headers are read in one pass (``RequestHeaders``).
            let query = request.uri.queryParameters
            let queryToken = query.isEmpty ? nil : query["ckWebAuthToken"].map(String.init)
            let authorization = requestHeaders.authorization
            do { caller = try authenticate(queryToken: queryToken, authorization: authorization) } catch {
                // A token this node does not know may belong to a user another node (on a
                // shared journal) added just now: catch up, then ask again.
                try? await host.catchUp()
                caller = try authenticate(queryToken: queryToken, authorization: authorization)
            }
            // An asset upload URL takes the file's bytes as they are (any content type).
            if !Self.isAssetUpload(parts) { try Self.checkContentType(requestHeaders, caller: caller) }
            if let device {
                try Self.checkDevice(device)
                if let owner = host.owner(ofDevice: device), owner != caller.user {
                    throw CloudError(
                        .permissionFailure, "X-SyncScope-Device names a device that belongs to another user; send your own device's ID (from tokens/create).")
                }
            }
            if parts.first == "internal" {
                answer = .notFound("There is no '\(path)'; the API lives under /database/1/, /device/1/ and /admin/1/.")
            } else if Self.isWebcourier(parts) {
                guard method == "GET" else {
                    throw Refusal(status: 405, CloudError(.invalidArguments, "The webcourierURL takes GET, not \(method)."))
                }
                let result = try await pollWebcourier(token: parts[5], request: request, caller: caller, context: context)
                answer = result.answer
                poll = result
            } else {
                let body = try await readBody(request)
                var parameters: [String: String] = [:]
                for (key, value) in query { parameters[String(key)] = String(value) }
                faulted = await host.performWithFaults(
                    APICall(
                        method: method, path: path, body: body, user: caller.user, deviceID: device, isServerAdmin: caller == .serverAdmin,
                        parameters: parameters))
                answer = faulted?.answer ?? .notFound(path)
                tokenIn = answer.tokenIn
                tokenOut = answer.tokenOut
            }
        } catch let refusal as Refusal {
            answer = .error(refusal.error, status: refusal.status)
        } catch let error as CloudError {
            answer = .error(error, status: error.code == .quotaExceeded ? 413 : nil)
        } catch {
            answer = .error(CloudError(.invalidArguments, "The request could not be read: the connection failed or the body is malformed."))
        }
        if let started {
            let elapsed = ContinuousClock.now - started
            let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            let tokens = (tokenIn != nil || tokenOut != nil)
                ? " token \(tokenIn.map { "…" + $0.shortForm } ?? "none") → \(tokenOut.map { "…" + $0.shortForm } ?? "none")" : ""
            let error = answer.status == 200 ? "" : " \(answer.wireError?.serverErrorCode ?? "")"
            let who: String
            switch caller {
            case .anonymous: who = "-"
            case .user(let name): who = name
            case .serverAdmin: who = "(server admin)"
            }
            logger.info(
                "\(method.prefix(20)) \(shownPath.prefix(200)) user=\(who) device=\(device.map { String($0.prefix(64)) } ?? "-")\(tokens) → \(answer.status)\(error) \(String(format: "%.2f", ms)) ms\(faulted?.note.map { " [\($0)]" } ?? "")")
        }
        if faulted?.dropConnection == true { return Self.droppedConnection() }
        let status = HTTPResponse.Status(code: answer.status)
        // The common answer: a JSON body and nothing else to say in the headers.
        if poll == nil, answer.status == 200 {
            return Response(status: status, headers: Self.jsonHeaders, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        var headers = HTTPFields()
        // A long-poll whose time is up with nothing waiting answers an empty body, as Apple's web courier does.
        if poll == nil || !answer.body.isEmpty { headers.append(HTTPField(name: .contentType, value: Self.jsonContentType)) }
        if answer.status == 405 { headers.append(HTTPField(name: .allow, value: "GET, POST")) }
        if let retryAfter = answer.wireError?.retryAfter { headers.append(HTTPField(name: .retryAfter, value: String(Int(retryAfter.rounded(.up))))) }
        guard let poll, !poll.notificationIDs.isEmpty else {
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        // A notification stays the device's until it acknowledges it; an
        // answer that cannot be written whole puts it back at once.
        let body = answer.body
        let host = self.host
        let presence = limits.presence(for: context.channel)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: body.count) { writer in
                // A client gone before the answer is written gets nothing: the notifications wait.
                if presence?.isGone == true {
                    host.finishPoll(poll, written: false)
                    throw CancellationError()
                }
                do {
                    try await writer.write(ByteBuffer(bytes: body))
                    try await writer.finish(nil)
                } catch {
                    host.finishPoll(poll, written: false)
                    throw error
                }
                host.finishPoll(poll, written: true)
            })
    }

    /// An error with an HTTP status of its own (405, 415).
    struct Refusal: Error {
        var status: Int
        var error: CloudError
        init(status: Int, _ error: CloudError) {
            self.status = status
            self.error = error
        }
    }

    /// The path's segments, percent-decoded, in the one spelling the server
    /// takes, and the path as the API sees it; any other spelling is a 400
    /// that says what is wrong. A path with nothing to decode is its own canonical form.
    static func canonicalPath(_ raw: String) throws(CloudError) -> (parts: [String], path: String) {
        if let parts = plainPathSegments(raw) { return (parts, raw) }
        return try canonicalPathDecoding(raw)
    }

    /// The segments of a path with nothing to decode or refuse: ASCII, starting
    /// with '/', no '%' or '\\', no empty, `.` or `..` segment. `nil` for any
    /// other path (``canonicalPathDecoding(_:)`` reads it, or says what is wrong).
    static func plainPathSegments(_ raw: String) -> [String]? {
        let slash = UInt8(ascii: "/")
        var previous = UInt8(0)
        for byte in raw.utf8 {
            // Not ASCII, something to decode, or an empty segment.
            guard byte < 0x80, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "\\"), byte != slash || previous != slash else { return nil }
            previous = byte
        }
        guard raw.utf8.first == slash, previous != slash else { return nil }
        let segments = TextChecks.pathSegments(raw)
        return segments.contains { $0 == "." || $0 == ".." } ? nil : segments
    }

    /// ``canonicalPath(_:)`` for a path that is not plain: each segment percent-decoded or refused.
    static func canonicalPathDecoding(_ raw: String) throws(CloudError) -> (parts: [String], path: String) {
        let slash = UInt8(ascii: "/")
        let bytes = raw.utf8
        guard bytes.first == slash else {
            throw CloudError(.invalidArguments, "The path must start with '/'.")
        }
        guard bytes.count > 1 else {
            throw CloudError(.invalidArguments, "There is nothing at '/'; the API lives under /database/1/, /device/1/ and /admin/1/.")
        }
        var segments: [String] = []
        segments.reserveCapacity(8)
        var decodedAny = false
        var start = bytes.index(after: bytes.startIndex)
        while true {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            // '/' is ASCII: its positions are character boundaries of the string.
            let rawSegment = raw[start..<end]
            guard !rawSegment.isEmpty else {
                throw CloudError(.invalidArguments, "The path has an empty segment (a doubled or trailing '/'); write each path in its one form, such as /database/1/{container}/{environment}/{database}/{operation}.")
            }
            // Most segments hold no '%' or '\\' and are not dots: nothing to decode or refuse.
            let special = rawSegment.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "\\") }
            if !special, rawSegment != ".", rawSegment != ".." {
                segments.append(String(rawSegment))
            } else {
                decodedAny = true
                segments.append(try decodeSegment(rawSegment))
            }
            guard end != bytes.endIndex else { break }
            start = bytes.index(after: end)
        }
        return (segments, decodedAny ? "/" + segments.joined(separator: "/") : raw)
    }

    /// One path segment holding a '%', a '\\' or being a dot segment: percent-decoded, or refused.
    private static func decodeSegment(_ rawSegment: Substring) throws(CloudError) -> String {
        let lowered = rawSegment.lowercased()
        guard !lowered.contains("%2f"), !lowered.contains("%5c"), !rawSegment.contains("\\") else {
            throw CloudError(.invalidArguments, "The path holds an encoded slash ('%2F' or '%5C'); path segments may not contain slashes.")
        }
        guard let decoded = String(rawSegment).removingPercentEncoding else {
            throw CloudError(.invalidArguments, "The path holds a '%' that does not start a valid percent-encoded UTF-8 character.")
        }
        guard decoded != ".", decoded != ".." else {
            throw CloudError(.invalidArguments, "The path holds a '.' or '..' segment; write each path in its one form, without them.")
        }
        guard !decoded.contains("/") else {
            throw CloudError(.invalidArguments, "The path holds an encoded slash; path segments may not contain slashes.")
        }
        return decoded
    }

    static func isWebcourier(_ parts: [String]) -> Bool {
        parts.count == 6 && parts[0] == "device" && parts[1] == "1" && parts[4] == "webcourier"
    }

    /// The caller of `ckWebAuthToken=` or `Authorization: Bearer`: a user,
    /// the server admin, or anonymous without either.
    private func authenticate(queryToken: String?, authorization: String?) throws(CloudError) -> Identity {
        var token = queryToken
        if token == nil, let header = authorization {
            guard let bearer = Self.bearerToken(header) else {
                throw CloudError(.authenticationFailed, "The Authorization header must be 'Bearer TOKEN'.")
            }
            token = bearer
        }
        guard let token else { return .anonymous }
        if host.isAdminToken(token) { return .serverAdmin }
        guard let user = host.user(withToken: token) else {
            throw CloudError(
                .authenticationFailed,
                "This token is no user's web auth token and not the server admin token; syncscope serve prints both at start-up (also in users.json and admin.json in its data folder).")
        }
        return .user(user)
    }

    /// The token of an `Authorization: Bearer TOKEN` header (the scheme in
    /// any case, the token without the whitespace around it), or `nil` when
    /// the header is not of that form. An ASCII header is read byte by byte
    /// (``asciiBearerToken(_:)``); any other goes the general way (split into
    /// characters), with the same result.
    static func bearerToken(_ header: String) -> String? {
        switch asciiBearerToken(header) {
        case .token(let token): return token
        case .refused: return nil
        case .notASCII: break
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, isASCIICaseInsensitive(parts[0], "bearer") else { return nil }
        return trimmingWhitespace(parts[1])
    }

    enum ASCIIBearer: Equatable {
        case token(String)
        /// Not `Bearer TOKEN`.
        case refused
        /// Not ASCII (or holding a carriage return): read it by characters.
        case notASCII
    }

    /// ``bearerToken(_:)`` for an ASCII header, whose characters are its
    /// bytes: the first word after any leading spaces must be `bearer` in any
    /// case, followed by a space and something; the token is that something
    /// without the spaces and tabs around it (`CharacterSet.whitespaces` in ASCII).
    static func asciiBearerToken(_ header: String) -> ASCIIBearer {
        var header = header
        return header.withUTF8 { bytes -> ASCIIBearer in
            let space = UInt8(ascii: " ")
            let tab = UInt8(ascii: "\t")
            var schemeStart = -1
            var schemeEnd = -1
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x80, byte != UInt8(ascii: "\r") else { return .notASCII }
                if schemeEnd < 0 {
                    if byte == space {
                        if schemeStart >= 0 { schemeEnd = index }
                    } else if schemeStart < 0 {
                        schemeStart = index
                    }
                }
            }
            guard schemeStart >= 0, schemeEnd >= 0, schemeEnd + 1 < bytes.count, schemeEnd - schemeStart == 6 else { return .refused }
            for (offset, letter) in "bearer".utf8.enumerated() where bytes[schemeStart + offset] | 0x20 != letter {
                return .refused
            }
            var start = schemeEnd + 1
            var end = bytes.count
            while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
            while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
            return .token(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
    }

    /// Whether `text` is `lowercase` (ASCII letters) in any case.
    static func isASCIICaseInsensitive(_ text: Substring, _ lowercase: StaticString) -> Bool {
        let bytes = text.utf8
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, letter in byte == letter || byte | 0x20 == letter && (0x61...0x7A).contains(letter) }
        }
    }

    /// `text` without the whitespace around it (`CharacterSet.whitespaces`);
    /// a text starting and ending with a visible ASCII character is returned as it is.
    static func trimmingWhitespace(_ text: Substring) -> String {
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return String(text)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A request with a body must say it is JSON: `application/json`, or
    /// `text/plain` together with valid credentials (what Apple's clients send).
    static func checkContentType(_ headers: RequestHeaders, caller: Identity) throws {
        let contentType = headers.contentType
        // The common case: exactly what the API asks for, whatever the body.
        if contentType == "application/json" || contentType == "application/json; charset=utf-8" { return }
        let length = headers.contentLength.flatMap { Int($0) ?? Int($0.trimmingCharacters(in: .whitespaces)) }
        let hasBody = headers.transferEncoding != nil || (length ?? 0) > 0
        guard hasBody else { return }
        guard let contentType else {
            throw Refusal(status: 415, CloudError(.invalidArguments, "The request has a body but no Content-Type; send the JSON body with 'Content-Type: application/json'."))
        }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch mediaType {
        case "application/json":
            return
        case "text/plain" where caller != .anonymous:
            return
        case "text/plain":
            throw Refusal(
                status: 415,
                CloudError(
                    .invalidArguments,
                    "A text/plain body is taken only with valid credentials (a web auth token); send the JSON body with 'Content-Type: application/json'."))
        default:
            throw Refusal(
                status: 415,
                CloudError(.invalidArguments, "The body is '\(mediaType.prefix(60))'; this API reads JSON only: send it with 'Content-Type: application/json'."))
        }
    }

    /// `/assets/1/{container}/{environment}/upload`: where `assets/upload` sends the bytes.
    static func isAssetUpload(_ parts: [String]) -> Bool {
        parts.count == 5 && parts[0] == "assets" && parts[1] == "1" && parts[4] == "upload"
    }

    static func checkDevice(_ device: String) throws(CloudError) {
        guard !device.isEmpty, device.utf8.count <= 255, !TextChecks.containsControlCharacter(device)
        else {
            throw CloudError(.invalidArguments, "X-SyncScope-Device must be 1 to 255 bytes without control characters.")
        }
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
    private func pollWebcourier(token: String, request: Request, caller: Identity, context: ServeRequestContext) async throws -> ServerHost.PollResult {
        guard let user = caller.user else {
            throw CloudError(
                .notAuthenticated,
                "Polling a webcourierURL needs the web auth token of the user who made it with tokens/create (ckWebAuthToken=TOKEN or 'Authorization: Bearer TOKEN').")
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
            deviceID: token, user: user, timeout: .milliseconds(Int64(timeout * 1000)), lastNotificationID: last,
            presence: limits.presence(for: context.channel))
    }
}
