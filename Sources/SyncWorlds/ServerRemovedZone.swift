import Foundation
import SyncCore

/// A private zone that is gone (deleted, purged or reset), until it is created again.
public struct ServerRemovedZone: Sendable, Hashable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    public var reason: ZoneDeletionReason

    public init(scope: DatabaseScope, zoneID: RecordZoneID, reason: ZoneDeletionReason) {
        self.scope = scope
        self.zoneID = zoneID
        self.reason = reason
    }
}
