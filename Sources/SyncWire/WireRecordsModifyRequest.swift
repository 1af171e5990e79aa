import SyncCore

/// `records/modify`.
public struct WireRecordsModifyRequest: Codable, Sendable, Hashable {
    public struct Operation: Codable, Sendable, Hashable {
        public var operationType: String
        public var record: WireRecord

        public init(operationType: String, record: WireRecord) {
            self.operationType = operationType
            self.record = record
        }
    }

    public var operations: [Operation]
    public var zoneID: WireZoneID?
    public var atomic: Bool?
    public var desiredKeys: [String]?
    /// Base64.
    public var clientChangeTokenData: String?

    public init(
        operations: [Operation], zoneID: WireZoneID?, atomic: Bool? = nil, desiredKeys: [String]? = nil, clientChangeTokenData: String? = nil
    ) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
        self.desiredKeys = desiredKeys
        self.clientChangeTokenData = clientChangeTokenData
    }
}
