import SyncCore
import SyncClient
import SyncScenario

/// A zone a database-changes answer reported removed, and why.
public struct RemovedZone: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var reason: ZoneDeletionReason

    public init(zoneID: RecordZoneID, reason: ZoneDeletionReason) {
        self.zoneID = zoneID
        self.reason = reason
    }
}
