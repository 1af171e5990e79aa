import Foundation
import SyncCore

/// One zone of a `changes/zone` answer: `{"zoneID", "syncToken",
/// "moreComing", "records": [...], "clientChangeTokenData"?}`.
public struct WireZoneChanges: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var syncToken: ServerChangeToken
    public var moreComing: Bool
    public var records: [WireRecord]
    /// Base64, as the client sent it with `records/modify`.
    public var clientChangeTokenData: String?

    public init(
        zoneID: WireZoneID, syncToken: ServerChangeToken, moreComing: Bool, records: [WireRecord],
        clientChangeTokenData: String? = nil
    ) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.moreComing = moreComing
        self.records = records
        self.clientChangeTokenData = clientChangeTokenData
    }

    public init(_ batch: ZoneChangesBatch) {
        self.init(
            zoneID: WireZoneID(batch.zoneID),
            syncToken: batch.serverChangeToken,
            moreComing: batch.moreComing,
            records: batch.changes.map(WireRecord.init),
            clientChangeTokenData: batch.clientChangeTokenData?.base64EncodedString())
    }
}

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

/// A `changes/zone` answer: `{"zones": [zone changes | error]}`, in request order.
public struct WireZoneChangesResponse: Codable, Sendable, Hashable {
    public var zones: [WireResult<WireZoneChanges>]

    public init(zones: [WireResult<WireZoneChanges>]) {
        self.zones = zones
    }

    public init(_ results: [Result<ZoneChangesBatch, CloudError>]) {
        zones = results.map { result in
            switch result {
            case .success(let batch): .success(WireZoneChanges(batch))
            case .failure(let error): .failure(WireError(error))
            }
        }
    }

    /// Each zone's batch or error. A zone whose records cannot be read
    /// becomes that zone's `invalidArguments` error; the others are kept.
    public var results: [Result<ZoneChangesBatch, CloudError>] {
        zones.map { item in
            switch item {
            case .success(let wire): Result { () throws(CloudError) in try ZoneChangesBatch(wire) }
            case .failure(let error): .failure(CloudError(error))
            }
        }
    }
}

/// One zone of a `changes/database` answer: `{"zoneID"}` when it changed,
/// `{"zoneID", "deleted": true, "reason": "deleted"|"purged"|"encryptedDataReset"}`
/// when it went away.
public struct WireDatabaseZoneChange: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var deleted: Bool?
    public var reason: String?

    public init(zoneID: WireZoneID, deleted: Bool? = nil, reason: String? = nil) {
        self.zoneID = zoneID
        self.deleted = deleted
        self.reason = reason
    }

    public init(_ change: DatabaseChange) {
        switch change {
        case .zoneChanged(let id): self.init(zoneID: WireZoneID(id))
        case .zoneRemoved(let id, let reason): self.init(zoneID: WireZoneID(id), deleted: true, reason: reason.rawValue)
        }
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

extension DatabaseChangesBatch {
    public init(_ wire: WireDatabaseChanges) throws(CloudError) {
        var changes: [DatabaseChange] = []
        changes.reserveCapacity(wire.zones.count)
        for zone in wire.zones { changes.append(try DatabaseChange(zone)) }
        self.init(changes: changes, serverChangeToken: wire.syncToken, moreComing: wire.moreComing)
    }
}
