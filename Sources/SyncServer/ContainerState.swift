import Foundation
import SyncCore

/// One container in one environment.
final class ContainerState {
    let publicZone: ZoneState
    var users: [String: UserDatabases] = [:]
    /// Each share's record (its zone and record name), by short GUID (what
    /// `records/resolve` and `records/accept` find).
    var sharesByGUID: [String: RecordID] = [:]
    /// The container's schema in this environment (see `ServerEngine+Schema`).
    var schema = ContainerSchema()

    init(publicZoneIncarnation: UInt64) {
        publicZone = ZoneState(
            zoneID: .defaultZone(ownerName: RecordZoneID.publicOwnerName), incarnation: publicZoneIncarnation
        )
    }

    init(publicZone: ZoneState) {
        self.publicZone = publicZone
    }
}
