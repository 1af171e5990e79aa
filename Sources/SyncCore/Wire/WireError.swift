/// An error on the wire, in place of a result item or as a whole body:
/// `{"serverErrorCode", "reason", "recordName"?, "zoneID"?, "subscriptionID"?,
/// "retryAfter"?}`, plus two keys of ours: `ckErrorCode` (the
/// ``CloudError/Code`` raw value, since several codes share a
/// `serverErrorCode`) and, for `CONFLICT`, `serverRecord`.
public struct WireError: Codable, Sendable, Hashable {
    public var serverErrorCode: String
    public var reason: String
    public var recordName: String?
    public var zoneID: WireZoneID?
    public var subscriptionID: String?
    /// Seconds to wait before retrying.
    public var retryAfter: Double?
    public var ckErrorCode: String?
    public var serverRecord: WireRecord?

    public init(
        serverErrorCode: String,
        reason: String,
        recordName: String? = nil,
        zoneID: WireZoneID? = nil,
        subscriptionID: String? = nil,
        retryAfter: Double? = nil,
        ckErrorCode: String? = nil,
        serverRecord: WireRecord? = nil
    ) {
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.recordName = recordName
        self.zoneID = zoneID
        self.subscriptionID = subscriptionID
        self.retryAfter = retryAfter
        self.ckErrorCode = ckErrorCode
        self.serverRecord = serverRecord
    }

    public init(_ error: CloudError, retryAfter: Double? = nil) {
        self.init(
            serverErrorCode: error.serverErrorCode,
            reason: error.reason,
            recordName: error.recordName,
            zoneID: error.zoneID.map(WireZoneID.init),
            subscriptionID: error.subscriptionID,
            retryAfter: retryAfter ?? error.retryAfter,
            ckErrorCode: error.code.rawValue,
            serverRecord: error.serverRecord.map(WireRecord.init))
    }

    /// The error code this wire error stands for: `ckErrorCode` when it is one
    /// we know, otherwise the code CloudKit Web Services' `serverErrorCode`
    /// maps to (`BAD_REQUEST` → `invalidArguments`; unknown → `internalError`).
    public var code: CloudError.Code {
        if let ckErrorCode, let code = CloudError.Code(rawValue: ckErrorCode) { return code }
        switch serverErrorCode {
        case "BAD_REQUEST": return .invalidArguments
        default:
            return CloudError.Code.allCases.first { $0.serverErrorCode == serverErrorCode } ?? .internalError
        }
    }
}

extension CloudError {
    /// The error a wire error describes. A `serverRecord` is read in the
    /// error's zone (or in `zoneID` when the error names none); one that cannot
    /// be read is left out rather than hiding the error itself.
    public init(_ wire: WireError, zoneID: RecordZoneID? = nil) {
        let errorZone = wire.zoneID.map(RecordZoneID.init)
        let recordZone = errorZone ?? zoneID ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
        self.init(
            wire.code,
            wire.reason,
            recordName: wire.recordName,
            zoneID: errorZone,
            subscriptionID: wire.subscriptionID,
            serverRecord: wire.serverRecord.flatMap { try? Record($0, zoneID: recordZone) },
            retryAfter: wire.retryAfter)
    }
}

/// An item of a list answer that holds either a result or an error, such as
/// `{"records": [record | error]}` or `{"zones": [zone | error]}`. An item
/// with a `serverErrorCode` key is an error.
public enum WireResult<Success: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    case success(Success)
    case failure(WireError)

    private enum Keys: String, CodingKey { case serverErrorCode }

    public init(from decoder: any Decoder) throws {
        let keys = try? decoder.container(keyedBy: Keys.self)
        if let keys, keys.contains(.serverErrorCode) {
            self = .failure(try WireError(from: decoder))
        } else {
            self = .success(try Success(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .success(let value): try value.encode(to: encoder)
        case .failure(let error): try error.encode(to: encoder)
        }
    }
}
