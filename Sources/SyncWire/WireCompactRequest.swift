import SyncCore

/// `admin/compact`: `{"database"?, "zoneID"?, "keepLast"?}`.
public struct WireCompactRequest: Codable, Sendable, Hashable {
    public var database: String?
    public var zoneID: WireZoneID?
    public var keepLast: Int?

    public init(database: String? = nil, zoneID: WireZoneID? = nil, keepLast: Int? = nil) {
        self.database = database
        self.zoneID = zoneID
        self.keepLast = keepLast
    }
}
