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
