import Foundation
import SyncCore

/// A `changes/database` answer: `{"zones": [...], "syncToken", "moreComing"}`.
public struct WireDatabaseChanges: Codable, Sendable, Hashable {
    public var zones: [WireDatabaseZoneChange]
    public var syncToken: ServerChangeToken
    public var moreComing: Bool

    public init(zones: [WireDatabaseZoneChange], syncToken: ServerChangeToken, moreComing: Bool) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }

    public init(_ batch: DatabaseChangesBatch) {
        self.init(zones: batch.changes.map(WireDatabaseZoneChange.init), syncToken: batch.serverChangeToken, moreComing: batch.moreComing)
    }
}
