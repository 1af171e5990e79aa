import SyncCore

/// `records/query`: `{"query": {"recordType", "filterBy"?, "sortBy"?},
/// "zoneID"?, "zoneWide"?, "resultsLimit"?, "continuationMarker"?,
/// "desiredKeys"?, "numbersAsStrings"?}`.
public struct WireRecordsQueryRequest: Codable, Sendable, Hashable {
    public var query: WireQuery
    public var zoneID: WireZoneID?
    public var zoneWide: Bool?
    public var resultsLimit: Int?
    public var continuationMarker: String?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(
        query: WireQuery, zoneID: WireZoneID? = nil, zoneWide: Bool? = nil, resultsLimit: Int? = nil, continuationMarker: String? = nil,
        desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil
    ) {
        self.query = query
        self.zoneID = zoneID
        self.zoneWide = zoneWide
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
}
