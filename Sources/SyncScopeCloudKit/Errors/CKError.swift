import Foundation
import SyncCore

/// CloudKit's error domain (`CKErrorDomain`).
public let CKErrorDomain = "CKErrorDomain"
/// `userInfo` key: the per-item errors of a `partialFailure`, by record ID, zone ID or subscription ID.
public let CKPartialErrorsByItemIDKey = "CKPartialErrors"
/// `userInfo` key: the server's record, on `serverRecordChanged`.
public let CKRecordChangedErrorServerRecordKey = "ServerRecord"
/// `userInfo` key: the record the client tried to save, on `serverRecordChanged`.
public let CKRecordChangedErrorClientRecordKey = "ClientRecord"
/// `userInfo` key: the record the client last fetched, on `serverRecordChanged` (SyncScope leaves it out).
public let CKRecordChangedErrorAncestorRecordKey = "AncestorRecord"
/// `userInfo` key: seconds to wait before retrying, as an `NSNumber`.
public let CKErrorRetryAfterKey = "CKRetryAfter"
/// `userInfo` key: the user reset their encrypted data, on `zoneNotFound`/`userDeletedZone`.
public let CKErrorUserDidResetEncryptedDataKey = "CKErrorUserDidResetEncryptedDataKey"

/// An error from CloudKit, as CloudKit's `CKError`: a ``Code`` and a `userInfo` with
/// CloudKit's keys, and the accessors Apple's Swift overlay adds (``serverRecord``,
/// ``retryAfterSeconds``, ``partialErrorsByItemID``).
public struct CKError: Error, CustomNSError, Hashable, CustomStringConvertible, @unchecked Sendable {
    /// CloudKit's error codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case internalError = 1
        case partialFailure = 2
        case networkUnavailable = 3
        case networkFailure = 4
        case badContainer = 5
        case serviceUnavailable = 6
        case requestRateLimited = 7
        case missingEntitlement = 8
        case notAuthenticated = 9
        case permissionFailure = 10
        case unknownItem = 11
        case invalidArguments = 12
        case resultsTruncated = 13
        case serverRecordChanged = 14
        case serverRejectedRequest = 15
        case assetFileNotFound = 16
        case assetFileModified = 17
        case incompatibleVersion = 18
        case constraintViolation = 19
        case operationCancelled = 20
        case changeTokenExpired = 21
        case batchRequestFailed = 22
        case zoneBusy = 23
        case badDatabase = 24
        case quotaExceeded = 25
        case zoneNotFound = 26
        case limitExceeded = 27
        case userDeletedZone = 28
        case tooManyParticipants = 29
        case alreadyShared = 30
        case referenceViolation = 31
        case managedAccountRestricted = 32
        case participantMayNeedVerification = 33
        case serverResponseLost = 34
        case assetNotAvailable = 35
        case accountTemporarilyUnavailable = 36
    }

    public let code: Code
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    public static var errorDomain: String { CKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    /// The server's record, on `serverRecordChanged`: merge into it and save it again.
    public var serverRecord: CKRecord? { userInfo[CKRecordChangedErrorServerRecordKey] as? CKRecord }
    /// The record the save sent, on `serverRecordChanged`.
    public var clientRecord: CKRecord? { userInfo[CKRecordChangedErrorClientRecordKey] as? CKRecord }
    /// The record as the client last fetched it; SyncScope does not send it (`nil`).
    public var ancestorRecord: CKRecord? { userInfo[CKRecordChangedErrorAncestorRecordKey] as? CKRecord }
    /// Seconds to wait before retrying (`CKErrorRetryAfterKey`).
    public var retryAfterSeconds: Double? {
        switch userInfo[CKErrorRetryAfterKey] {
        case let n as NSNumber: n.doubleValue
        case let d as Double: d
        default: nil
        }
    }
    /// The per-item errors of a `partialFailure`, keyed by `CKRecord.ID`, `CKRecordZone.ID` or subscription ID.
    public var partialErrorsByItemID: [AnyHashable: any Error]? { userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: any Error] }

    public var localizedDescription: String { userInfo[NSLocalizedDescriptionKey] as? String ?? "CloudKit error \(code)" }

    public var description: String {
        let items = partialErrorsByItemID.map { " " + $0.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "; ") } ?? ""
        return "<CKError \(code.rawValue) (\(code)): \(localizedDescription)\(items)>"
    }

    public static func == (lhs: CKError, rhs: CKError) -> Bool {
        lhs.code == rhs.code && lhs.localizedDescription == rhs.localizedDescription
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(localizedDescription)
    }
}

/// `catch CKError.zoneNotFound`: whether `error` is a `CKError` with this code.
public func ~= (code: CKError.Code, error: any Error) -> Bool {
    (error as? CKError)?.code == code
}

extension CKError {
    public static var internalError: Code { .internalError }
    public static var partialFailure: Code { .partialFailure }
    public static var networkUnavailable: Code { .networkUnavailable }
    public static var networkFailure: Code { .networkFailure }
    public static var serviceUnavailable: Code { .serviceUnavailable }
    public static var requestRateLimited: Code { .requestRateLimited }
    public static var notAuthenticated: Code { .notAuthenticated }
    public static var permissionFailure: Code { .permissionFailure }
    public static var unknownItem: Code { .unknownItem }
    public static var invalidArguments: Code { .invalidArguments }
    public static var serverRecordChanged: Code { .serverRecordChanged }
    public static var serverRejectedRequest: Code { .serverRejectedRequest }
    public static var operationCancelled: Code { .operationCancelled }
    public static var changeTokenExpired: Code { .changeTokenExpired }
    public static var batchRequestFailed: Code { .batchRequestFailed }
    public static var zoneBusy: Code { .zoneBusy }
    public static var quotaExceeded: Code { .quotaExceeded }
    public static var zoneNotFound: Code { .zoneNotFound }
    public static var limitExceeded: Code { .limitExceeded }
    public static var userDeletedZone: Code { .userDeletedZone }
    public static var serverResponseLost: Code { .serverResponseLost }
    public static var accountTemporarilyUnavailable: Code { .accountTemporarilyUnavailable }
}

extension CKError.Code {
    /// Whether CloudKit's clients retry this error themselves, after `retryAfterSeconds` or a back-off.
    var isRetryable: Bool {
        switch self {
        case .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy, .internalError,
            .serverResponseLost, .notAuthenticated, .accountTemporarilyUnavailable:
            true
        default: false
        }
    }

    init(_ code: CloudError.Code) {
        self =
            switch code {
            case .changeTokenExpired: .changeTokenExpired
            case .zoneNotFound: .zoneNotFound
            case .userDeletedZone: .userDeletedZone
            case .serverRecordChanged: .serverRecordChanged
            case .alreadyExists: .serverRecordChanged
            case .unknownItem: .unknownItem
            case .partialFailure: .partialFailure
            case .batchRequestFailed: .batchRequestFailed
            case .limitExceeded: .limitExceeded
            case .invalidArguments: .invalidArguments
            case .permissionFailure: .permissionFailure
            case .notAuthenticated, .authenticationFailed: .notAuthenticated
            case .quotaExceeded: .quotaExceeded
            case .internalError: .internalError
            case .networkFailure: .networkFailure
            case .requestRateLimited: .requestRateLimited
            case .zoneBusy: .zoneBusy
            case .serviceUnavailable: .serviceUnavailable
            }
    }
}

extension CKError {
    /// The CloudKit error for a server error; `serverRecord` comes back as a `CKRecord` in
    /// CloudKit's names, and `clientRecord` is the record the save sent.
    init(_ error: CloudError, user: String, clientRecord: CKRecord? = nil) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: error.reason]
        if let record = error.serverRecord { info[CKRecordChangedErrorServerRecordKey] = CKRecord(record, user: user) }
        if let clientRecord { info[CKRecordChangedErrorClientRecordKey] = clientRecord }
        if let seconds = error.retryAfter { info[CKErrorRetryAfterKey] = NSNumber(value: seconds) }
        self.init(Code(error.code), userInfo: info)
    }

    /// Any error thrown by a back end, as a `CKError`.
    init(converting error: any Error, user: String) {
        switch error {
        case let error as CKError: self = error
        case let error as CloudError: self.init(error, user: user, clientRecord: nil)
        case is CancellationError: self.init(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "The operation was cancelled."])
        default: self.init(.networkFailure, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }

    static func partial(_ errors: [AnyHashable: any Error], _ what: String) -> CKError {
        CKError(.partialFailure, userInfo: [
            NSLocalizedDescriptionKey: "Failed to \(what) (\(errors.count) item\(errors.count == 1 ? "" : "s") failed)",
            CKPartialErrorsByItemIDKey: errors,
        ])
    }
}
