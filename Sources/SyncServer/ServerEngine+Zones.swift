import Foundation
import SyncCore

extension ServerEngine {
    /// `zones/modify`: creates and deletes zones. Results come in request
    /// order, saves first. Creating an existing zone returns it.
    public func modifyRecordZones(
        caller: Caller, database: DatabaseID, saving: [RecordZoneID], deleting: [RecordZoneID]
    ) throws(CloudError) -> [Result<RecordZone, CloudError>] {
        try checkCaller(caller)
        let total = saving.count + deleting.count
        guard total <= configuration.maxOperationsPerRequest else {
            throw CloudError(
                .limitExceeded,
                "This request has \(total) zone operations; at most \(configuration.maxOperationsPerRequest) are allowed. Nothing was applied.")
        }
        let saves = saving.map { normalize($0, caller: caller, scope: database.scope) }
        let deletes = deleting.map { normalize($0, caller: caller, scope: database.scope) }
        var seen = Set<RecordZoneID>()
        for id in saves + deletes where !seen.insert(id).inserted {
            throw CloudError(.invalidArguments, "Zone '\(id.zoneName)' appears twice in one request; send one operation per zone.", zoneID: id)
        }
        guard database.scope == .private else {
            throw CloudError(
                .invalidArguments,
                database.scope == .public
                    ? "The public database has only its default zone; zones cannot be created or deleted there."
                    : "Zones in the shared database belong to their owners; the owner creates, deletes and shares them from their private database.")
        }
        let dbs = databases(of: caller.user, in: database)
        var results: [Result<RecordZone, CloudError>] = []
        for id in saves {
            results.append(Result { () throws(CloudError) in try createZone(id, caller: caller, in: dbs, database: database) })
        }
        for id in deletes {
            results.append(Result { () throws(CloudError) in
                try removeZone(id, caller: caller, in: dbs, database: database, reason: .deleted)
            })
        }
        return results
    }

    private func createZone(_ id: RecordZoneID, caller: Caller, in dbs: UserDatabases, database: DatabaseID) throws(CloudError) -> RecordZone {
        guard id.ownerName == caller.user else {
            throw CloudError(.permissionFailure, "You can only create zones you own; '\(id.zoneName)' names \(id.ownerName) as owner.", zoneID: id)
        }
        try Validation.checkName(id.zoneName, what: "zone name")
        if dbs.privateZones[id.zoneName] == nil {
            guard !id.zoneName.hasPrefix("_") else {
                throw CloudError(.invalidArguments, "Zone names starting with '_' are reserved; '\(id.zoneName)' cannot be created.", zoneID: id)
            }
            dbs.privateZones[id.zoneName] = ZoneState(zoneID: id, incarnation: random.next())
            dbs.removedZoneReasons[id.zoneName] = nil
            dbs.privateLog.zoneChanged(id)
            applyRetention(to: &dbs.privateLog)
            databaseChanged(caller.user, .private, database, id, .zoneCreated, originatingDeviceID: caller.deviceID)
        }
        return RecordZone(zoneID: id)
    }

    /// Removes a private zone for a reason, and tells its participants.
    func removeZone(
        _ id: RecordZoneID, caller: Caller, in dbs: UserDatabases, database: DatabaseID, reason: ZoneDeletionReason
    ) throws(CloudError) -> RecordZone {
        guard id.ownerName == caller.user else {
            throw CloudError(.permissionFailure, "Only the owner can delete zone '\(id.zoneName)'.", zoneID: id)
        }
        guard !id.isDefaultZone else {
            throw CloudError(.invalidArguments, "The default zone cannot be deleted.", zoneID: id)
        }
        guard let zone = dbs.privateZones[id.zoneName] else {
            throw missingZoneError(id, reason: dbs.removedZoneReasons[id.zoneName])
        }
        dbs.privateZones[id.zoneName] = nil
        if let share = zone.share { containerState(database).sharesByGUID[share.shortGUID] = nil }
        for share in zone.recordShares.values { containerState(database).sharesByGUID[share.shortGUID] = nil }
        dbs.removedZoneReasons[id.zoneName] = reason
        dbs.privateLog.zoneRemoved(id, reason: reason)
        applyRetention(to: &dbs.privateLog)
        // A purge or reset is the user's act in Settings: every device hears of it.
        let originator = reason == .deleted ? caller.deviceID : nil
        databaseChanged(caller.user, .private, database, id, .zoneDeleted(reason), originatingDeviceID: originator)
        for participant in zone.participants.sorted() {
            let other = databases(of: participant, in: database)
            other.sharedZones.remove(id)
            other.sharedLog.zoneRemoved(id, reason: .deleted)
            applyRetention(to: &other.sharedLog)
            databaseChanged(participant, .shared, database, id, .zoneDeleted(reason), originatingDeviceID: nil)
        }
        return RecordZone(zoneID: id)
    }

    /// Tells the database-change observers that `user`'s `scope` database changed.
    func databaseChanged(
        _ user: String, _ scope: DatabaseScope, _ database: DatabaseID, _ zoneID: RecordZoneID, _ change: DatabaseChangeEvent.Change,
        originatingDeviceID: String?
    ) {
        guard !databaseChangeObservers.isEmpty else { return }
        let event = DatabaseChangeEvent(
            container: database.container, environment: database.environment, user: user, scope: scope, zoneID: zoneID,
            change: change, originatingDeviceID: originatingDeviceID, time: clock.now())
        for observer in databaseChangeObservers { observer(event) }
    }

    /// `zones/list`: the zones of a database for the caller, each with the
    /// token for "now" (custom zones only).
    public func listRecordZones(caller: Caller, database: DatabaseID) throws(CloudError) -> [ZoneListing] {
        if database.scope != .public { try checkCaller(caller) }
        switch database.scope {
        case .public:
            return [ZoneListing(zoneID: containerState(database).publicZone.zoneID, syncToken: nil)]
        case .private:
            let dbs = databases(of: caller.user, in: database)
            return dbs.privateZones.values.sorted { $0.zoneID < $1.zoneID }.map { zone in
                ZoneListing(zoneID: zone.zoneID, syncToken: zone.zoneID.isDefaultZone ? nil : currentToken(of: zone, caller: caller, scope: .private, database: database))
            }
        case .shared:
            let dbs = databases(of: caller.user, in: database)
            return dbs.sharedZones.sorted().compactMap { id in
                guard let zone = databases(of: id.ownerName, in: database).privateZones[id.zoneName] else { return nil }
                return ZoneListing(zoneID: id, syncToken: currentToken(of: zone, caller: caller, scope: .shared, database: database))
            }
        }
    }

    /// Shares (or, with `revoke`, stops sharing) a private zone with other
    /// users; returns who the zone is shared with afterwards, sorted.
    @discardableResult
    public func shareRecordZone(
        caller: Caller, database: DatabaseID, zoneID: RecordZoneID, participants: [String], revoke: Bool
    ) throws(CloudError) -> [String] {
        try checkCaller(caller)
        let id = normalize(zoneID, caller: caller, scope: .private)
        guard database.scope == .private || database.scope == .shared else {
            throw CloudError(.invalidArguments, "Only private zones can be shared.", zoneID: id)
        }
        guard id.ownerName == caller.user else {
            throw CloudError(.permissionFailure, "Only the owner (\(id.ownerName)) can share or revoke zone '\(id.zoneName)'.", zoneID: id)
        }
        guard !id.isDefaultZone else {
            throw CloudError(.invalidArguments, "The default zone cannot be shared; share a custom zone.", zoneID: id)
        }
        let privateDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .private)
        let zone = try self.zone(id, for: caller, in: privateDatabase)
        // The shorthand of a zone-wide share: a zone with record shares cannot also be shared whole.
        guard revoke || zone.recordShares.isEmpty else {
            throw CloudError(
                .alreadyExists,
                "Zone '\(id.zoneName)' holds record shares (\(zone.recordShares.keys.sorted().joined(separator: ", "))); a zone with shared records cannot also be shared whole (CKError.alreadyShared).",
                zoneID: id)
        }
        for participant in participants {
            guard accounts[participant] != nil else {
                throw CloudError(.invalidArguments, "There is no user named '\(participant)' to share with.", zoneID: id)
            }
            guard participant != caller.user else {
                throw CloudError(.invalidArguments, "You cannot share a zone with yourself.", zoneID: id)
            }
        }
        for participant in participants {
            if revoke {
                revokeSharedZone(zone, from: participant, database: database)
            } else {
                grantSharedZone(zone, to: participant, database: database)
            }
        }
        return zone.participants.sorted()
    }

    /// The user deleted this app's data for a zone in Settings.
    public func purgeRecordZone(caller: Caller, database: DatabaseID, zoneID: RecordZoneID) throws(CloudError) {
        try checkCaller(caller)
        guard database.scope == .private else {
            throw CloudError(.invalidArguments, "Only private zones can be purged; '\(database.scope.rawValue)' has none of yours.")
        }
        let id = normalize(zoneID, caller: caller, scope: .private)
        _ = try removeZone(id, caller: caller, in: databases(of: caller.user, in: database), database: database, reason: .purged)
    }

    /// The user reset their encrypted data: every private custom zone goes,
    /// reported with reason `encryptedDataReset`.
    public func encryptedDataReset(caller: Caller, database: DatabaseID) throws(CloudError) {
        try checkCaller(caller)
        let privateDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .private)
        let dbs = databases(of: caller.user, in: privateDatabase)
        for zone in dbs.privateZones.values.sorted(by: { $0.zoneID < $1.zoneID }) where !zone.zoneID.isDefaultZone {
            _ = try removeZone(zone.zoneID, caller: caller, in: dbs, database: privateDatabase, reason: .encryptedDataReset)
        }
    }

    /// Moves the retention horizon so only the last `keepLast` changes remain
    /// fetchable by token. `scope` nil: private and shared; `zoneID` nil: every zone.
    public func compactHistory(
        caller: Caller, database: DatabaseID, scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int
    ) throws(CloudError) {
        try checkCaller(caller)
        guard keepLast >= 0 else { throw CloudError(.invalidArguments, "keepLast must be 0 or more, not \(keepLast).") }
        let keep = Int64(keepLast)
        let dbs = databases(of: caller.user, in: database)
        if let zoneID {
            let scope = scope ?? .private
            if scope == .shared {
                throw CloudError(
                    .permissionFailure,
                    "Only the owner (\(zoneID.ownerName.isEmpty ? "another user" : zoneID.ownerName)) can compact the history of shared zone '\(zoneID.zoneName)'; compacting it would expire the owner's tokens.",
                    zoneID: zoneID)
            }
            let zoneDatabase = DatabaseID(container: database.container, environment: database.environment, scope: scope)
            let zone = try self.zone(normalize(zoneID, caller: caller, scope: scope), for: caller, in: zoneDatabase)
            zone.compact(through: zone.log.lastSequence - keep)
            return
        }
        if scope == nil || scope == .private {
            for zone in dbs.privateZones.values { zone.compact(through: zone.log.lastSequence - keep) }
            dbs.privateLog.compact(through: dbs.privateLog.log.lastSequence - keep)
        }
        if scope == nil || scope == .shared {
            dbs.sharedLog.compact(through: dbs.sharedLog.log.lastSequence - keep)
        }
    }

    /// Compacts every zone and database log on the server (admin, benchmarks, tests).
    public func compactEverything(keepLast: Int) {
        let keep = Int64(max(0, keepLast))
        for container in containers.values {
            container.publicZone.compact(through: container.publicZone.log.lastSequence - keep)
            for dbs in container.users.values {
                for zone in dbs.privateZones.values { zone.compact(through: zone.log.lastSequence - keep) }
                dbs.privateLog.compact(through: dbs.privateLog.log.lastSequence - keep)
                dbs.sharedLog.compact(through: dbs.sharedLog.log.lastSequence - keep)
            }
        }
    }
}
