import SyncCore

/// A zone token change in a ``StoreBatch``.
public struct ZoneTokenChange: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var update: TokenUpdate

    public init(zoneID: RecordZoneID, update: TokenUpdate) {
        self.zoneID = zoneID
        self.update = update
    }
}
