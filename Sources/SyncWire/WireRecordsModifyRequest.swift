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

        private enum CodingKeys: String, CodingKey {
            case operationType, record
        }

        /// The record may leave out `recordName`: a save then creates a
        /// record with a new UUID name (Apple's documented default).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            operationType = try container.decode(String.self, forKey: .operationType)
            if container.contains(.record) {
                record = try WireRecord(from: try container.superDecoder(forKey: .record), nameRequired: false)
            } else {
                record = try container.decode(WireRecord.self, forKey: .record)
            }
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
