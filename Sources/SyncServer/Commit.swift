import Foundation
import SyncCore

/// What one successful `records/modify` changed, for subscriptions and the inspector.
public struct Commit: Sendable {
    public var container: String
    public var environment: ContainerEnvironment
    /// The database of the zone's owner (`.private` or `.public`).
    public var ownerScope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Users who see this zone in their shared database.
    public var participants: Set<String>
    public var caller: Caller
    public var changes: [CommittedChange]
    public var time: Milliseconds
}
