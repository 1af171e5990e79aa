import Foundation
import SyncCore

/// One user's databases in one container and environment.
final class UserDatabases {
    let user: String
    /// Private zones by name, the default zone included.
    var privateZones: [String: ZoneState] = [:]
    /// Why a private zone that no longer exists went away.
    var removedZoneReasons: [String: ZoneDeletionReason] = [:]
    var privateLog: DatabaseLog
    /// Zones other users share with this user.
    var sharedZones: Set<RecordZoneID> = []
    var sharedLog: DatabaseLog

    init(user: String, privateIncarnation: UInt64, sharedIncarnation: UInt64, defaultZoneIncarnation: UInt64) {
        self.user = user
        privateLog = DatabaseLog(incarnation: privateIncarnation)
        sharedLog = DatabaseLog(incarnation: sharedIncarnation)
        let defaultZone = RecordZoneID.defaultZone(ownerName: user)
        privateZones[defaultZone.zoneName] = ZoneState(zoneID: defaultZone, incarnation: defaultZoneIncarnation)
    }
}
