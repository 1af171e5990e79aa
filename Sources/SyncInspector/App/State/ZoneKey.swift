import SyncCore
import SyncClient

/// A zone, named by database and ID.
public struct ZoneKey: Hashable, Sendable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID

    public init(scope: DatabaseScope, zoneID: RecordZoneID) {
        self.scope = scope
        self.zoneID = zoneID
    }
}
