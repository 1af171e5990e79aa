import Foundation
import SyncCore

/// What one `records/modify` item will do, decided before anything is applied.
private enum Plan {
    /// `parent`: the record's parent after the save (nil: none).
    case save(name: String, type: UInt32, fields: RecordFields, existing: StoredRecord?, parent: String?)
    case delete(name: String, existing: StoredRecord)

    var name: String {
        switch self {
        case .save(let name, _, _, _, _), .delete(let name, _): name
        }
    }
}

extension ServerEngine {

    /// `records/modify`: saves and deletes records in one zone.
    ///
    /// In a custom zone with `atomic` (the default) it is all or nothing: if
    /// any item fails, nothing is applied and the other items fail with
    /// `batchRequestFailed`. More than 400 items: `limitExceeded`, nothing applied.
    public func modifyRecords(
        caller: Caller,
        database: DatabaseID,
        zoneID requestedZoneID: RecordZoneID,
        operations: [RecordOperation],
        atomic: Bool = true,
        clientChangeTokenData: Data? = nil
    ) throws(CloudError) -> [Result<RecordOperationResult, CloudError>] {
        try checkCaller(caller)
        guard operations.count <= configuration.maxOperationsPerRequest else {
            throw CloudError(
                .limitExceeded,
                "This request has \(operations.count) record operations; at most \(configuration.maxOperationsPerRequest) are allowed in one request. Nothing was applied; split it into smaller requests.")
        }
        if database.scope == .public {
            try Validation.checkName(caller.user, what: "user")
        }
        let zoneID = normalize(requestedZoneID, caller: caller, scope: database.scope)
        let zone = try zone(zoneID, for: caller, in: database)
        if database.scope == .shared { try checkSharedWrite(zone, caller: caller) }
        let container = configuration.checksSchemas ? containerState(database) : nil
        // Development's schema additions of this request, kept only if it applies.
        var schemaDraft: ContainerSchema?
        var schemaMemo = SaveSchemaMemo()

        // 1. Decide every item without applying anything.
        var plans: [Result<Plan, CloudError>] = []
        plans.reserveCapacity(operations.count)
        var seen = Set<String>(minimumCapacity: operations.count)
        for operation in operations {
            plans.append(Result { () throws(CloudError) in
                try plan(
                    operation, zone: zone, zoneID: zoneID, caller: caller, database: database, container: container, schemaDraft: &schemaDraft,
                    schemaMemo: &schemaMemo, seen: &seen)
            })
        }
        let anyFailed = plans.contains { if case .failure = $0 { true } else { false } }
        if anyFailed && atomic && !zoneID.isDefaultZone {
            return plans.map { plan -> Result<RecordOperationResult, CloudError> in
                switch plan {
                case .failure(let error): .failure(error)
                case .success(let p):
                    .failure(CloudError(
                        .batchRequestFailed,
                        "Not saved: another item of this atomic request failed, so none of it was applied.",
                        recordName: p.name, zoneID: zoneID))
                }
            }
        }

        if !expectedRecords.isEmpty, let expected = expectedRecords.removeValue(forKey: zoneID) {
            reserveRoom(for: expected, in: zone, plans)
        }

        // 2. Apply the items that can be applied, as one commit.
        let now = clock.now()
        let user = names.intern(caller.user)
        let device = caller.deviceID.map { names.intern($0) } ?? 0
        let stamp = Stamp(time: now, user: user, device: device)
        let observing = !commitObservers.isEmpty
        var committed: [CommittedChange] = []
        var results: [Result<RecordOperationResult, CloudError>] = []
        results.reserveCapacity(plans.count)
        var anyApplied = false
        var deletedShares: [String] = []
        // Only in a zone with record-share participants: what this commit touched, to tell who sees it.
        let tracksNames = !zone.limitedParticipants.isEmpty
        var touched: [String] = []
        // Read once: no item of this loop makes or drops a share (a deleted share goes after it).
        let shareOfRoot = zone.shareOfRoot
        // Each plan is read where it lies, field by field, not copied out whole.
        for index in plans.indices {
            switch plans[index] {
            case .failure(let error):
                results.append(.failure(error))
            case .success(.save(let name, let type, let fields, let existing, let parent)):
                anyApplied = true
                if tracksNames { touched.append(name) }
                // Built before the save moves the record's parent.
                let before = observing ? existing.map { record($0, name: name, zone: zone) } : nil
                if let parent {
                    zone.parents[name] = parent
                } else if !zone.parents.isEmpty {
                    zone.parents[name] = nil
                }
                if let existing {
                    zone.log.remove(existing.sequence)
                } else if !zone.tombstones.isEmpty, let tombstone = zone.tombstones.removeValue(forKey: name) {
                    zone.log.remove(tombstone.sequence)
                }
                let stored = StoredRecord(
                    type: type, fields: fields, tag: nextChangeTag, created: existing?.created ?? stamp,
                    modified: stamp, sequence: zone.log.append(name))
                nextChangeTag += 1
                zone.store(stored, name: name)
                // Its links from the plan and the share roots read above, not from the zone's tables.
                let saved = record(
                    stored, name: name, zoneID: zoneID, parent: parent,
                    share: shareOfRoot.isEmpty ? nil : shareOfRoot[name])
                results.append(.success(.saved(saved)))
                if observing {
                    committed.append(CommittedChange(recordID: saved.recordID, recordType: saved.recordType, before: before, after: saved))
                }
            case .success(.delete(let name, let existing)):
                anyApplied = true
                if tracksNames { touched.append(name) }
                zone.log.remove(existing.sequence)
                zone.removeRecord(named: name)
                let sequence = zone.log.append(name)
                zone.tombstones[name] = Tombstone(type: existing.type, sequence: sequence)
                zone.tombstoneQueue.append(sequence, name)
                if zone.hasShares, zone.storedShare(named: name) != nil { deletedShares.append(name) }
                let recordID = RecordID(recordName: name, zoneID: zoneID)
                results.append(.success(.deleted(recordID, recordType: names[existing.type])))
                if observing {
                    committed.append(CommittedChange(
                        recordID: recordID, recordType: names[existing.type],
                        before: record(existing, name: name, zone: zone), after: nil))
                }
            }
        }
        // A deleted share record takes its share with it.
        for name in deletedShares { dropShare(named: name, in: zone, database: database) }
        if let clientChangeTokenData { zone.clientChangeTokenData = clientChangeTokenData }
        if anyApplied, let schemaDraft, let container { container.schema = schemaDraft }
        if anyApplied {
            applyRetention(to: zone)
            let reached = zone.participants(seeing: touched)
            if !zoneID.isDefaultZone, database.scope != .public { markZoneChanged(zoneID, forOwnerAnd: reached, in: database) }
            if observing { publishCommit(committed, in: zoneID, database: database, participants: reached, caller: caller, time: now) }
        }
        return results
    }

    /// Tells the commit observers (the push layer) of changes committed to a
    /// zone of `database`'s owner, seen by `participants`: every change to a
    /// zone's records comes through here, a save's as a share's acceptance.
    func publishCommit(
        _ changes: [CommittedChange], in zoneID: RecordZoneID, database: DatabaseID, participants: Set<String>, caller: Caller, time: Milliseconds
    ) {
        let commit = Commit(
            container: database.container, environment: database.environment, ownerScope: database.scope == .public ? .public : .private,
            zoneID: zoneID, participants: participants, caller: caller, changes: changes, time: time)
        for observer in commitObservers { observer(commit) }
    }

    /// Makes room in a zone for the records expected in it (``expectRecords(_:)``).
    private func reserveRoom(for expected: Int, in zone: ZoneState, _ plans: [Result<Plan, CloudError>]) {
        let type = plans.lazy.compactMap { plan -> UInt32? in
            if case .success(.save(_, let type, _, _, _)) = plan { type } else { nil }
        }.first
        zone.reserveCapacity(adding: expected, ofType: type)
    }

    /// Records about to be saved, by zone (a journal's replay counts them
    /// before applying its rows): each zone makes room for its count at its
    /// next save, so that its tables do not regrow (and rehash every record)
    /// again and again on the way. Changes no state; a count too high only costs memory.
    public func expectRecords(_ counts: [RecordZoneID: Int]) {
        expectedRecords = counts.filter { $0.value > 0 }
    }

    private func plan(
        _ operation: RecordOperation, zone: ZoneState, zoneID: RecordZoneID, caller: Caller, database: DatabaseID,
        container: ContainerState?, schemaDraft: inout ContainerSchema?, schemaMemo: inout SaveSchemaMemo, seen: inout Set<String>
    ) throws(CloudError) -> Plan {
        let scope = database.scope
        let record = operation.record
        var name = record.recordID.recordName
        // A save that names no record makes a new one with a UUID name, as Apple does.
        if name.isEmpty, !operation.type.isDelete { name = newRecordName(in: zone, besides: seen) }
        try Validation.checkRecordName(name)
        let recordZone = normalize(record.recordID.zoneID, caller: caller, scope: scope)
        guard recordZone == zoneID else {
            throw CloudError(
                .invalidArguments,
                "Record '\(name)' is in zone '\(recordZone.zoneName)', but this request modifies zone '\(zoneID.zoneName)'; send one request per zone.",
                recordName: name, zoneID: zoneID)
        }
        guard seen.insert(name).inserted else {
            throw CloudError(.invalidArguments, "Record '\(name)' appears more than once in this request.", recordName: name, zoneID: zoneID)
        }
        let existing = zone.records[name]
        // `delete` checks the tag only when one is given; `update` and `replace` always do.
        let checksTag = operation.type.checksChangeTag && (operation.type != .delete || record.recordChangeTag != nil)
        if checksTag, let existing {
            let serverTag = Self.tagString(existing.tag)
            if record.recordChangeTag != serverTag {
                let what = record.recordChangeTag.map { "change tag \($0)" } ?? "no change tag"
                throw CloudError(
                    .serverRecordChanged,
                    "Record '\(name)' was changed on the server (its change tag is now \(serverTag); you sent \(what)). Merge your change into the server record and save again.",
                    recordName: name, zoneID: zoneID, serverRecord: self.record(existing, name: name, zone: zone))
            }
        }
        let limited = zone.limitedViewer(caller.user, in: scope) != nil
        // Shares are the owner's: no participant saves or deletes a share record.
        if scope == .shared, record.recordType == ZoneShare.recordType || existing.map({ names[$0.type] == ZoneShare.recordType }) == true {
            throw CloudError(
                .permissionFailure, "Only \(zoneID.ownerName), the owner, saves or deletes the shares of zone '\(zoneID.zoneName)'.", recordName: name, zoneID: zoneID)
        }
        if operation.type.isDelete {
            guard let existing else {
                throw CloudError(.unknownItem, "Record '\(name)' does not exist, so it cannot be deleted.", recordName: name, zoneID: zoneID)
            }
            if limited { try checkLimitedWrite(zone, caller: caller, name: name, parent: nil) }
            return .delete(name: name, existing: existing)
        }
        let parent = try plannedParent(record, name: name, zone: zone, existing: existing)
        if limited { try checkLimitedWrite(zone, caller: caller, name: name, parent: parent) }
        if operation.type == .create, let existing {
            throw CloudError(
                .alreadyExists, "Record '\(name)' already exists; use update to change it.",
                recordName: name, zoneID: zoneID, serverRecord: self.record(existing, name: name, zone: zone))
        }
        if existing == nil, operation.type.checksChangeTag, let tag = record.recordChangeTag {
            throw CloudError(
                .unknownItem, "Record '\(name)' (change tag \(tag)) no longer exists on the server; it was deleted.",
                recordName: name, zoneID: zoneID)
        }
        for field in record.fields {
            try Validation.checkFieldName(field.name)
            try Validation.checkFieldValue(field.value, field: field.name, recordName: name, zoneID: zoneID)
        }
        let type: UInt32
        if record.recordType.isEmpty, let existing {
            type = existing.type
        } else {
            try Validation.checkName(record.recordType, what: "record type")
            if let existing, names[existing.type] != record.recordType {
                throw CloudError(
                    .invalidArguments,
                    "Record '\(name)' is a '\(names[existing.type])'; it cannot be saved as a '\(record.recordType)'.",
                    recordName: name, zoneID: zoneID)
            }
            type = names.intern(record.recordType)
        }
        let typeName = record.recordType.isEmpty ? names[type] : record.recordType
        // A record of the type and shape the request's last one fitted needs no check.
        if let container, !schemaMemo.admits(typeName, record.fields) {
            try admitSave(
                recordType: typeName, fields: record.fields, container: container,
                environment: database.environment, draft: &schemaDraft, memo: &schemaMemo, recordName: name, zoneID: zoneID)
        }
        var fields = if let existing, !operation.type.replacesAllFields {
            existing.fields.merging(record.fields)
        } else {
            record.fields
        }
        for removed in operation.removedFieldNames { fields[removed] = nil }
        return .save(name: name, type: type, fields: fields, existing: existing, parent: parent)
    }

    /// A saved record's parent: the one it names (a record of its zone,
    /// never itself or one of its descendants), else the one it had.
    private func plannedParent(_ record: Record, name: String, zone: ZoneState, existing: StoredRecord?) throws(CloudError) -> String? {
        guard let reference = record.parent else { return existing == nil ? nil : zone.parents[name] }
        let zoneID = zone.zoneID
        if let other = reference.zoneID, other.zoneName != zoneID.zoneName || (!other.ownerName.isEmpty && other.ownerName != RecordZoneID.currentUserName && other.ownerName != zoneID.ownerName) {
            throw CloudError(
                .invalidArguments, "Record '\(name)' names a parent in zone '\(other.zoneName)'; a record's parent is in its own zone.", recordName: name, zoneID: zoneID)
        }
        guard reference.recordName != name, !isAncestor(name, of: reference.recordName, in: zone) else {
            throw CloudError(
                .invalidArguments, "Record '\(name)' cannot have '\(reference.recordName)' as its parent: the parent chain would loop.", recordName: name, zoneID: zoneID)
        }
        return reference.recordName
    }

    /// A new record name: a version 4 UUID (upper case, as `NSUUID` writes it)
    /// from the engine's seeded randomness, so a replayed journal makes the
    /// same one; never a name the zone or the request already has.
    private func newRecordName(in zone: ZoneState, besides seen: Set<String>) -> String {
        while true {
            var b = random.bytes(16)
            b[6] = b[6] & 0x0F | 0x40
            b[8] = b[8] & 0x3F | 0x80
            let name = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString
            if zone.records[name] == nil, zone.tombstones[name] == nil, !seen.contains(name) { return name }
        }
    }

    /// `records/lookup`: records by name, each or `unknownItem`.
    public func lookupRecords(
        caller: Caller, database: DatabaseID, zoneID requestedZoneID: RecordZoneID, recordNames: [String],
        desiredKeys: [String]? = nil
    ) throws(CloudError) -> [Result<Record, CloudError>] {
        if database.scope != .public { try checkCaller(caller) }
        let zoneID = normalize(requestedZoneID, caller: caller, scope: database.scope)
        let zone = try zone(zoneID, for: caller, in: database)
        let viewer = zone.limitedViewer(caller.user, in: database.scope)
        return recordNames.map { name in
            guard let stored = zone.records[name], viewer.map({ zone.isVisible(name, to: $0) }) ?? true else {
                return .failure(CloudError(.unknownItem, "Record '\(name)' does not exist in zone '\(zoneID.zoneName)'.", recordName: name, zoneID: zoneID))
            }
            return .success(record(stored, name: name, zone: zone, desiredKeys: desiredKeys))
        }
    }
}
