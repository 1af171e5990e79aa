import SyncCore

/// `changes/zone`.
public struct WireZoneChangesRequest: Codable, Sendable, Hashable {
    public struct Zone: Codable, Sendable, Hashable {
        public var zoneID: WireZoneID
        public var syncToken: ServerChangeToken?
        public var resultsLimit: Int?
        public var desiredKeys: [String]?
        /// Only records of these types (deletions included, by the type the record had).
        public var desiredRecordTypes: [String]?
        public var numbersAsStrings: Bool?

        public init(
            zoneID: WireZoneID, syncToken: ServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
            desiredRecordTypes: [String]? = nil, numbersAsStrings: Bool? = nil
        ) {
            self.zoneID = zoneID
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
            self.desiredRecordTypes = desiredRecordTypes
            self.numbersAsStrings = numbersAsStrings
        }
    }

    public var zones: [Zone]
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var desiredRecordTypes: [String]?
    public var numbersAsStrings: Bool?

    public init(
        zones: [Zone], resultsLimit: Int? = nil, desiredKeys: [String]? = nil, desiredRecordTypes: [String]? = nil,
        numbersAsStrings: Bool? = nil
    ) {
        self.zones = zones
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.desiredRecordTypes = desiredRecordTypes
        self.numbersAsStrings = numbersAsStrings
    }
}
