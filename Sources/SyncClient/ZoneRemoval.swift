import SyncCore

/// A zone to forget locally. Its token and known-zone entry always go.
public struct ZoneRemoval: Sendable, Hashable {
    public var zoneID: RecordZoneID
    /// Delete the zone's cached records.
    public var removeRecords: Bool
    /// Drop every pending change in the zone.
    public var removePendingChanges: Bool

    public init(zoneID: RecordZoneID, removeRecords: Bool = true, removePendingChanges: Bool = true) {
        self.zoneID = zoneID
        self.removeRecords = removeRecords
        self.removePendingChanges = removePendingChanges
    }
}
