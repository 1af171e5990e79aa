import Foundation
import Hummingbird
import Logging
import HTTPTypes
import NIOCore
import SyncCore

/// `syncscope serve`: CloudKit Web Services over HTTP (see
/// <doc:WebServicesAPI>) on a ``ServerHost``, with Hummingbird.
public struct SyncScopeHTTPServer: Sendable {
    public let host: ServerHost
    let logger: Logger

    public init(host: ServerHost, logger: Logger) {
        self.host = host
        self.logger = logger
    }

    /// Serves until the task is cancelled. `onRunning` gets the port
    /// actually bound (useful with port 0).
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let options = host.options
        let responder = APIResponder(host: host, logger: logger, quiet: options.quiet, maxBodyBytes: options.maxBodyBytes)
        var silent = Logger(label: "hummingbird")
        silent.logLevel = .critical
        let host = self.host
        let app = Application(
            responder: responder,
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

/// Answers every request: reads the body (up to the limit), signs the
/// caller in, hands the call to the host, and logs one line.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let host: ServerHost
    let logger: Logger
    let quiet: Bool
    let maxBodyBytes: Int

    static let deviceHeader = HTTPField.Name("X-SyncScope-Device")!

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let rawPath = request.uri.path
        let path = rawPath.removingPercentEncoding ?? rawPath
        let method = request.method.rawValue
        var user: String?
        let device = request.headers[Self.deviceHeader]
        var answer: APIAnswer
        var tokenIn: ServerChangeToken?
        var tokenOut: ServerChangeToken?
        do {
            user = try authenticate(request)
            if let device { try Self.checkDevice(device) }
            if method == "GET", let token = Self.webcourierToken(path) {
                answer = try await poll(token: token, request: request)
            } else if method != "GET" && method != "POST" {
                throw CloudError(.invalidArguments, "The API takes GET and POST, not \(method).")
            } else if path.hasPrefix("/internal/") {
                answer = .notFound("There is no '\(path)'.")
            } else {
                let body = try await readBody(request)
                var parameters: [String: String] = [:]
                for (key, value) in request.uri.queryParameters { parameters[String(key)] = String(value) }
                answer = host.perform(APICall(method: method, path: path, body: body, user: user, deviceID: device, parameters: parameters))
                tokenIn = answer.tokenIn
                tokenOut = answer.tokenOut
            }
        } catch let error as CloudError {
            answer = .error(error, status: error.code == .quotaExceeded ? 413 : nil)
        } catch {
            answer = .error(CloudError(.internalError, "The request could not be read: \(error)."))
        }
        if !quiet {
            let elapsed = ContinuousClock.now - started
            let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            let tokens = (tokenIn != nil || tokenOut != nil)
                ? " token \(tokenIn.map { "…" + $0.shortForm } ?? "none") → \(tokenOut.map { "…" + $0.shortForm } ?? "none")" : ""
            let error = answer.status == 200 ? "" : " \(answer.wireError?.serverErrorCode ?? "")"
            logger.info(
                "\(method) \(path) user=\(user ?? "-") device=\(device ?? "-")\(tokens) → \(answer.status)\(error) \(String(format: "%.2f", ms)) ms")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The user of `ckWebAuthToken=` or `Authorization: Bearer`; `nil` without one.
    private func authenticate(_ request: Request) throws(CloudError) -> String? {
        var token = request.uri.queryParameters["ckWebAuthToken"].map(String.init)
        if token == nil, let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw CloudError(.authenticationFailed, "The Authorization header must be 'Bearer TOKEN'.")
            }
            token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        }
        guard let token else { return nil }
        guard let user = host.user(withToken: token) else {
            throw CloudError(
                .authenticationFailed,
                "This web auth token belongs to no user of this server; syncscope serve prints each user's token at start-up (also in users.json in its data folder).")
        }
        return user
    }

    static func checkDevice(_ device: String) throws(CloudError) {
        guard !device.isEmpty, device.utf8.count <= 255,
              !device.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
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

    /// `/device/1/{container}/{environment}/webcourier/{token}` → the token.
    static func webcourierToken(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 6, parts[0] == "device", parts[1] == "1", parts[4] == "webcourier" else { return nil }
        return String(parts[5])
    }

    private func poll(token: String, request: Request) async throws -> APIAnswer {
        var timeout = 30.0
        if let text = request.uri.queryParameters["timeout"] {
            guard let value = Double(String(text)), value.isFinite, value >= 0 else {
                throw CloudError(.invalidArguments, "timeout must be a number of seconds, 0 or more; got '\(text)'.")
            }
            timeout = min(value, 300)
        }
        guard host.isRegistered(token) else {
            return .notFound("No device with this token is registered for push; call tokens/create, then tokens/register, then poll the webcourierURL.")
        }
        return await host.poll(deviceID: token, timeout: .milliseconds(Int64(timeout * 1000)))
    }
}
