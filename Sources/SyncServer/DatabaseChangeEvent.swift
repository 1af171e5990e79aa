import Foundation
import SyncCore

/// A zone appeared in or left one user's database: the database-level
/// change that database subscriptions watch besides record changes.
public struct DatabaseChangeEvent: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        /// The owner created the zone (private database).
        case zoneCreated
        /// The zone went away: deleted by the app, purged in Settings, or
        /// dropped by an encrypted-data reset. In a participant's shared
        /// database: the owner did one of those.
        case zoneDeleted(ZoneDeletionReason)
        /// The owner shared the zone with this user (shared database).
        case zoneShared
        /// The owner stopped sharing the zone with this user (shared database).
        case shareRevoked
    }

    public var container: String
    public var environment: ContainerEnvironment
    /// Whose database changed.
    public var user: String
    /// `.private` (the owner's) or `.shared` (a participant's).
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    public var change: Change
    /// The device that made the change, which is not told about it; `nil` for
    /// what the user does in Settings (purge, encrypted-data reset), which
    /// every device of the user hears about, and in other users' databases.
    public var originatingDeviceID: String?
    public var time: Milliseconds
}
