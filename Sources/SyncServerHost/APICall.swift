import Foundation
import SyncCore
import SyncWire

/// One call of the HTTP API, as the server applies it and as its journal
/// records it: no HTTP left, the caller already authenticated.
public struct APICall: Sendable, Hashable {
    /// `GET` or `POST`.
    public var method: String
    /// The path without the query, such as `/database/1/C/development/private/records/modify`.
    /// Calls the server makes itself (adding a user, handing notifications
    /// to a device) use paths under `/internal/`, which HTTP never reaches.
    public var path: String
    public var body: Data
    /// The authenticated user; `nil` for an anonymous call.
    public var user: String?
    /// `X-SyncScope-Device`.
    public var deviceID: String?
    /// The URL's query parameters that shape an answer without changing
    /// state, such as `getCurrentSyncToken=true`. Not journaled: a replay
    /// needs only what changed the state.
    public var parameters: [String: String]
    /// The caller presented the server's admin credential (whole-server
    /// calls: `admin/reset`, `admin/import`, `admin/export`).
    public var isServerAdmin: Bool
    /// A call the server makes itself (`/internal/…`): adding a user, taking
    /// a device online, handing notifications to a long-poll. The network
    /// never makes one: the HTTP layer refuses every path under `/internal/`.
    public var isServerCall: Bool

    public init(
        method: String, path: String, body: Data = Data(), user: String? = nil, deviceID: String? = nil, isServerAdmin: Bool = false,
        isServerCall: Bool = false, parameters: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.user = user
        self.deviceID = deviceID
        self.isServerAdmin = isServerAdmin
        self.isServerCall = isServerCall
        self.parameters = parameters
    }

    /// A query parameter read as a flag: `true`, `True`, `1` or `yes` (any case).
    public func flag(_ name: String) -> Bool {
        guard let text = parameters[name]?.lowercased() else { return false }
        return text == "true" || text == "1" || text == "yes"
    }

    /// A call the server makes itself, under `/internal/`.
    package static func server(_ operation: String, _ body: some Encodable) -> APICall {
        APICall(
            method: "POST", path: "/internal/\(operation)", body: (try? WireJSON.encode(body)) ?? Data("{}".utf8), isServerCall: true)
    }
}

/// What the server answers to one call.
public struct APIAnswer: Sendable {
    public var status: Int
    public var body: Data
    /// The call changed the server's state: the journal must keep it.
    public var changedState: Bool
    /// The change token the call came with and the one it got, for the request log.
    public var tokenIn: ServerChangeToken?
    public var tokenOut: ServerChangeToken?
    /// The zones and records the call changed (for the event feed): set by
    /// `records/modify` and `zones/modify`, from the engine's results.
    package var changes: [CallChange] = []

    package init(status: Int = 200, body: Data, changedState: Bool = false, tokenIn: ServerChangeToken? = nil, tokenOut: ServerChangeToken? = nil) {
        self.status = status
        self.body = body
        self.changedState = changedState
        self.tokenIn = tokenIn
        self.tokenOut = tokenOut
    }

    /// A whole-request error: its HTTP status and `{"serverErrorCode", "reason", …}`.
    package static func error(_ error: CloudError, status: Int? = nil) -> APIAnswer {
        APIAnswer(status: status ?? error.code.httpStatus, body: (try? WireJSON.encode(WireError(error))) ?? Data(error.reason.utf8))
    }

    /// A 400 `BAD_REQUEST` with its reason.
    package static func badRequest(_ reason: String) -> APIAnswer {
        .error(CloudError(.invalidArguments, reason))
    }

    /// A 503 `TRY_AGAIN_LATER` with `retryAfter` (seconds).
    package static func tryAgainLater(_ reason: String, retryAfter: Double) -> APIAnswer {
        let wire = WireError(serverErrorCode: "TRY_AGAIN_LATER", reason: reason, retryAfter: retryAfter)
        return APIAnswer(status: 503, body: (try? WireJSON.encode(wire)) ?? Data(reason.utf8))
    }

    /// A 404 `NOT_FOUND` for a path the API does not have.
    package static func notFound(_ reason: String) -> APIAnswer {
        let wire = WireError(serverErrorCode: "NOT_FOUND", reason: reason, ckErrorCode: CloudError.Code.unknownItem.rawValue)
        return APIAnswer(status: 404, body: (try? WireJSON.encode(wire)) ?? Data(reason.utf8))
    }

    /// The error this answer carries when its status is not 200.
    public var wireError: WireError? {
        guard status != 200 else { return nil }
        return try? WireJSON.decode(WireError.self, from: body)
    }
}
