/// A query for records of one type: CloudKit's `CKQuery` (records/query's
/// `query` dictionary): `recordType`, filters ANDed, and sort descriptors.
public struct RecordQuery: Sendable, Hashable {
    /// One sort descriptor: a field (or a system field such as
    /// `___createTime`) and its direction.
    public struct Sort: Sendable, Hashable {
        public var fieldName: String
        public var ascending: Bool

        public init(_ fieldName: String, ascending: Bool = true) {
            self.fieldName = fieldName
            self.ascending = ascending
        }
    }

    public var recordType: String
    public var predicate: QueryPredicate
    public var sortBy: [Sort]

    public init(recordType: String, predicate: QueryPredicate = .all, sortBy: [Sort] = []) {
        self.recordType = recordType
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// The system fields a query may filter and sort on, as CloudKit Web
    /// Services names them: the record's name (a `REFERENCE`), and when it
    /// was created and last modified (`TIMESTAMP`s).
    public static let systemFieldNames: Set<String> = ["___recordID", "___createTime", "___modTime"]
}

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

/// One page of a query's answer.
public struct QueryResult: Sendable, Hashable {
    public var records: [Record]
    /// Present while the query's snapshot (the records that matched at its
    /// first page) has records left: pass it back, with the same query, for
    /// the next page.
    public var continuationMarker: String?
    /// The zone's current token (a single-zone query asked with `getCurrentSyncToken`).
    public var syncToken: ServerChangeToken?

    public init(records: [Record], continuationMarker: String? = nil, syncToken: ServerChangeToken? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
        self.syncToken = syncToken
    }
}
