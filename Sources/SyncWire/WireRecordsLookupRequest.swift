import SyncCore

/// `records/lookup`: `{"records": [{"recordName"}], "zoneID", "desiredKeys"?}`.
public struct WireRecordsLookupRequest: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public var recordName: String

        public init(recordName: String) { self.recordName = recordName }
    }

    public var records: [Item]
    public var zoneID: WireZoneID?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(records: [Item], zoneID: WireZoneID?, desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil) {
        self.records = records
        self.zoneID = zoneID
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
}
