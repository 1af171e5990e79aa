import SyncCore

/// `records/changes` (the older per-zone change fetch): `{"zoneID",
/// "syncToken"?, "resultsLimit"?, "desiredKeys"?, "desiredRecordTypes"?,
/// "numbersAsStrings"?}`.
public struct WireRecordsChangesRequest: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var syncToken: ServerChangeToken?
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
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
