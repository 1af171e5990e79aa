/// An error from the (simulated) server, mirroring `CKError`.
///
/// `code` is the CloudKit error code; `serverErrorCode` is the value CloudKit
/// Web Services (and our HTTP API) puts on the wire; `reason` is a sentence a
/// person understands.
public struct CloudError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        case changeTokenExpired
        case zoneNotFound
        case userDeletedZone
        case serverRecordChanged
        case alreadyExists
        case unknownItem
        case partialFailure
        case batchRequestFailed
        case limitExceeded
        case invalidArguments
        case permissionFailure
        case notAuthenticated
        case authenticationFailed
        case quotaExceeded
        case internalError
        case networkFailure
        /// The server throttled the request: wait ``CloudError/retryAfter`` seconds (`THROTTLED`, HTTP 429).
        case requestRateLimited
        /// The zone is too busy for this operation: retry after ``CloudError/retryAfter`` seconds, backing off.
        case zoneBusy
        /// The service is unavailable for now: retry after ``CloudError/retryAfter`` seconds (`TRY_AGAIN_LATER`, HTTP 503).
        case serviceUnavailable

        /// The `serverErrorCode` CloudKit Web Services uses for this error.
        public var serverErrorCode: String {
            switch self {
            case .changeTokenExpired: "CHANGE_TOKEN_EXPIRED"
            case .zoneNotFound: "ZONE_NOT_FOUND"
            case .userDeletedZone: "USER_DELETED_ZONE"
            case .serverRecordChanged: "CONFLICT"
            case .alreadyExists: "EXISTS"
            case .unknownItem: "NOT_FOUND"
            case .partialFailure: "PARTIAL_FAILURE"
            case .batchRequestFailed: "ATOMIC_ERROR"
            case .limitExceeded, .invalidArguments: "BAD_REQUEST"
            case .permissionFailure: "ACCESS_DENIED"
            case .notAuthenticated: "AUTHENTICATION_REQUIRED"
            case .authenticationFailed: "AUTHENTICATION_FAILED"
            case .quotaExceeded: "QUOTA_EXCEEDED"
            case .internalError: "INTERNAL_ERROR"
            case .networkFailure: "NETWORK_FAILURE"
            case .requestRateLimited: "THROTTLED"
            case .zoneBusy: "ZONE_BUSY"
            case .serviceUnavailable: "TRY_AGAIN_LATER"
            }
        }

        /// The HTTP status our API answers with when this error is the whole response.
        public var httpStatus: Int {
            switch self {
            case .changeTokenExpired: 410
            case .zoneNotFound, .userDeletedZone, .unknownItem: 404
            case .serverRecordChanged, .alreadyExists: 409
            case .notAuthenticated: 421
            case .authenticationFailed: 401
            case .permissionFailure: 403
            case .quotaExceeded: 413
            case .internalError, .networkFailure: 500
            case .requestRateLimited: 429
            case .zoneBusy, .serviceUnavailable: 503
            default: 400
            }
        }
    }

    public var code: Code
    public var reason: String
    public var recordName: String?
    public var zoneID: RecordZoneID?
    public var subscriptionID: String?
    /// For `serverRecordChanged`: the record as the server has it now, so the
    /// client can merge its change into it and retry.
    public var serverRecord: Record?
    /// Seconds to wait before retrying (`CKErrorRetryAfterKey`), for
    /// `requestRateLimited`, `zoneBusy` and `serviceUnavailable`.
    public var retryAfter: Double?

    public init(
        _ code: Code,
        _ reason: String,
        recordName: String? = nil,
        zoneID: RecordZoneID? = nil,
        subscriptionID: String? = nil,
        serverRecord: Record? = nil,
        retryAfter: Double? = nil
    ) {
        self.code = code
        self.reason = reason
        self.recordName = recordName
        self.zoneID = zoneID
        self.subscriptionID = subscriptionID
        self.serverRecord = serverRecord
        self.retryAfter = retryAfter
    }

    /// Whether sending the same request again later can succeed: the server
    /// was busy, throttled, unavailable or failed inside, or the answer was lost.
    public var isTransient: Bool {
        switch code {
        case .requestRateLimited, .zoneBusy, .serviceUnavailable, .networkFailure, .internalError: true
        default: false
        }
    }

    public var serverErrorCode: String { code.serverErrorCode }

    public var description: String { "\(code.rawValue) (\(serverErrorCode)): \(reason)" }
}
