import Foundation
import SyncCore

extension ZoneChangesBatch {
    /// Throws `invalidArguments` naming the record and field for a bad record,
    /// or when `clientChangeTokenData` is not base64.
    public init(_ wire: WireZoneChanges) throws(CloudError) {
        let zoneID = RecordZoneID(wire.zoneID)
        var changes: [RecordChange] = []
        changes.reserveCapacity(wire.records.count)
        for record in wire.records { changes.append(try RecordChange(record, zoneID: zoneID)) }
        var tokenData: Data?
        if let text = wire.clientChangeTokenData {
            guard let data = Data(base64Encoded: text) else {
                throw CloudError(.invalidArguments, "clientChangeTokenData of zone '\(zoneID.zoneName)' is not base64.", zoneID: zoneID)
            }
            tokenData = data
        }
        self.init(
            zoneID: zoneID, changes: changes, serverChangeToken: wire.syncToken, moreComing: wire.moreComing,
            clientChangeTokenData: tokenData)
    }
}

extension DatabaseChange {
    /// `deleted: true` without a reason means `deleted`; an unknown reason is `invalidArguments`.
    public init(_ wire: WireDatabaseZoneChange) throws(CloudError) {
        let zoneID = RecordZoneID(wire.zoneID)
        guard wire.deleted == true else {
            self = .zoneChanged(zoneID)
            return
        }
        guard let text = wire.reason else {
            self = .zoneRemoved(zoneID, reason: .deleted)
            return
        }
        guard let reason = ZoneDeletionReason(rawValue: text) else {
            let known = ZoneDeletionReason.allCases.map(\.rawValue).joined(separator: ", ")
            throw CloudError(
                .invalidArguments, "Zone '\(zoneID.zoneName)' was deleted for reason '\(text)', which is not one of \(known).",
                zoneID: zoneID)
        }
        self = .zoneRemoved(zoneID, reason: reason)
    }
}

extension DatabaseChangesBatch {
    public init(_ wire: WireDatabaseChanges) throws(CloudError) {
        var changes: [DatabaseChange] = []
        changes.reserveCapacity(wire.zones.count)
        for zone in wire.zones { changes.append(try DatabaseChange(zone)) }
        self.init(changes: changes, serverChangeToken: wire.syncToken, moreComing: wire.moreComing)
    }
}
