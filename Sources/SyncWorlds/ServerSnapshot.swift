import Foundation
import SyncCore

/// Everything the inspector's zone list shows about the server for one
/// device, read together: one `await` per refresh, over HTTP as in process.
public struct ServerSnapshot: Sendable, Hashable {
    public var user: String
    /// Private zones first, then shared, as ``ServerObserver/zoneSummaries(user:environment:)``.
    public var zones: [ServerZoneSummary]
    public var removedZones: [ServerRemovedZone]
    public var publicZone: ServerZoneSummary?
    /// For each zone listed in `zones` that the device has a token for.
    public var zoneTokens: [RecordZoneID: ZoneTokenState]
    /// Notifications on their way to the device (none known over HTTP).
    public var pendingNotifications: [PendingNotification]
}
