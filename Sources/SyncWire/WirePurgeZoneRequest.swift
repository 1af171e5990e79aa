import SyncCore

/// `admin/purgeZone`: `{"database", "zoneID"}`.
public struct WirePurgeZoneRequest: Codable, Sendable, Hashable {
    public var database: String?
    public var zoneID: WireZoneID

    public init(database: String? = nil, zoneID: WireZoneID) {
        self.database = database
        self.zoneID = zoneID
    }
}
