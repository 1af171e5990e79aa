import SyncCore

/// A zone in `zones/modify` and `zones/list`: `{"zoneID", "syncToken"?}`.
public struct WireZone: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var syncToken: ServerChangeToken?
    public var deleted: Bool?

    public init(zoneID: WireZoneID, syncToken: ServerChangeToken? = nil, deleted: Bool? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.deleted = deleted
    }
}
