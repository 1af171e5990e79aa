import SyncCore

/// An error on the wire, in place of a result item or as a whole body:
/// `{"serverErrorCode", "reason", "recordName"?, "zoneID"?, "subscriptionID"?,
/// "retryAfter"?}`, plus two keys of ours: `syncscopeErrorCode` (the
/// `CloudError.Code` raw value, since several codes share a
/// `serverErrorCode`) and, for `CONFLICT`, `serverRecord`.
///
/// Our key is deliberately not `ckErrorCode`: CloudKit JS takes a body's
/// `ckErrorCode` in preference to deriving one from `serverErrorCode`, so a
/// key of that name would turn Apple's clients' error handling upside down.
/// A `ckErrorCode` in a body we read (from an older server) is still understood.
public struct WireError: Codable, Sendable, Hashable {
    public var serverErrorCode: String
    public var reason: String
    public var recordName: String?
    public var zoneID: WireZoneID?
    public var subscriptionID: String?
    /// Seconds to wait before retrying.
    public var retryAfter: Double?
    /// Ours: the `CloudError.Code` raw value. Encoded as `syncscopeErrorCode`.
    public var ckErrorCode: String?
    public var serverRecord: WireRecord?

    private enum CodingKeys: String, CodingKey {
        case serverErrorCode, reason, recordName, zoneID, subscriptionID, retryAfter
        case syncscopeErrorCode, legacyErrorCode = "ckErrorCode", serverRecord
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serverErrorCode = try c.decode(String.self, forKey: .serverErrorCode)
        reason = try c.decodeIfPresent(String.self, forKey: .reason) ?? ""
        recordName = try c.decodeIfPresent(String.self, forKey: .recordName)
        zoneID = try c.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        subscriptionID = try c.decodeIfPresent(String.self, forKey: .subscriptionID)
        retryAfter = try c.decodeIfPresent(Double.self, forKey: .retryAfter)
        ckErrorCode = try c.decodeIfPresent(String.self, forKey: .syncscopeErrorCode)
            ?? c.decodeIfPresent(String.self, forKey: .legacyErrorCode)
        serverRecord = try c.decodeIfPresent(WireRecord.self, forKey: .serverRecord)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(serverErrorCode, forKey: .serverErrorCode)
        try c.encode(reason, forKey: .reason)
        try c.encodeIfPresent(recordName, forKey: .recordName)
        try c.encodeIfPresent(zoneID, forKey: .zoneID)
        try c.encodeIfPresent(subscriptionID, forKey: .subscriptionID)
        try c.encodeIfPresent(retryAfter, forKey: .retryAfter)
        try c.encodeIfPresent(ckErrorCode, forKey: .syncscopeErrorCode)
        try c.encodeIfPresent(serverRecord, forKey: .serverRecord)
    }

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
