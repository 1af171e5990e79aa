import SyncCore

/// The answer of `records/query`: `{"records", "continuationMarker"?,
/// "syncToken"?}`; `continuationMarker` is there while the query's snapshot has records left,
/// `syncToken` when the request asked `getCurrentSyncToken=true`.
public struct WireRecordsQueryResponse: Codable, Sendable, Hashable {
    public var records: [WireResult<WireRecord>]
    public var continuationMarker: String?
    public var syncToken: ServerChangeToken?

    public init(records: [WireResult<WireRecord>], continuationMarker: String? = nil, syncToken: ServerChangeToken? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
        self.syncToken = syncToken
    }
}
