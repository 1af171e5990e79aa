import SyncCore

/// `{"records": [record | error], "syncToken"?}`: the answer of
/// `records/modify` and `records/lookup`. `syncToken` (the zone's current
/// token) is there when the request asked `getCurrentSyncToken=true`.
public struct WireRecordsResponse: Codable, Sendable, Hashable {
    public var records: [WireResult<WireRecord>]
    public var syncToken: ServerChangeToken?

    public init(records: [WireResult<WireRecord>], syncToken: ServerChangeToken? = nil) {
        self.records = records
        self.syncToken = syncToken
    }
}
