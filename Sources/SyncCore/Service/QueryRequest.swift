/// Where and how much a query reads: records/query's other keys.
public struct QueryRequest: Sendable, Hashable {
    public var query: RecordQuery
    /// The zone to search; `nil` means the default zone (or every zone with `zoneWide`).
    public var zoneID: RecordZoneID?
    /// Search every zone of the database the caller can read.
    public var zoneWide: Bool
    /// `nil` or 0: the server's cap (400).
    public var resultsLimit: Int?
    /// Where the previous page ended, as the server handed it out.
    public var continuationMarker: String?
    /// `nil`: all fields; `[]`: none.
    public var desiredKeys: [String]?

    public init(
        query: RecordQuery, zoneID: RecordZoneID? = nil, zoneWide: Bool = false, resultsLimit: Int? = nil,
        continuationMarker: String? = nil, desiredKeys: [String]? = nil
    ) {
        self.query = query
        self.zoneID = zoneID
        self.zoneWide = zoneWide
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
    }
}
