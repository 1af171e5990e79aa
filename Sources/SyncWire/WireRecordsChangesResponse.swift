import SyncCore

/// The answer of `records/changes`: `{"zoneID", "records", "syncToken", "moreComing"}`.
public struct WireRecordsChangesResponse: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var records: [WireRecord]
    public var syncToken: ServerChangeToken
    public var moreComing: Bool

    public init(zoneID: WireZoneID, records: [WireRecord], syncToken: ServerChangeToken, moreComing: Bool) {
        self.zoneID = zoneID
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}
