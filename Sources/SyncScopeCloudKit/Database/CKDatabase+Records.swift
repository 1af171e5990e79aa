import Foundation
import SyncCore

extension CKDatabase {
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord {
        let results = try await records(for: [recordID])
        guard let result = results[recordID] else { throw CKError(.unknownItem) }
        return try result.get()
    }

    public func records(
        for ids: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil
    ) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        try await records(for: ids, desiredKeys: desiredKeys, via: try link())
    }

    public func save(_ record: CKRecord) async throws -> CKRecord {
        let (saved, _) = try await modifyRecords(saving: [record], deleting: [])
        guard let result = saved[record.recordID] else { throw CKError(.internalError) }
        return try result.get()
    }

    public func deleteRecord(withID recordID: CKRecord.ID) async throws -> CKRecord.ID {
        let (_, deleted) = try await modifyRecords(saving: [], deleting: [recordID])
        guard let result = deleted[recordID] else { throw CKError(.internalError) }
        try result.get()
        return recordID
    }

    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]) {
        let outcome = try await modifyRecords(
            saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically, via: try link())
        var saves: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for (id, result) in outcome.saves { saves[id] = result.mapError { $0 } }
        var deletes: [CKRecord.ID: Result<Void, any Error>] = [:]
        for (id, result) in outcome.deletes { deletes[id] = result.mapError { $0 } }
        return (saves, deletes)
    }

    // MARK: Through one device

    func records(
        for ids: [CKRecord.ID], desiredKeys: [String]?, via link: DeviceLink
    ) async throws(CKError) -> [CKRecord.ID: Result<CKRecord, any Error>] {
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for (zoneID, zoneIDs) in Self.groupedByZone(ids, \.zoneID) {
            let serverZone = zoneID.serverZoneID(user: link.user)
            link.backEnd.tick()
            do {
                let answers = try await link.service.lookupRecords(
                    in: scope, zoneID: serverZone, recordNames: zoneIDs.map(\.recordName), desiredKeys: desiredKeys)
                for (id, answer) in zip(zoneIDs, answers) {
                    results[id] = answer.map { CKRecord($0, user: link.user) }.mapError { CKError($0, user: link.user) }
                }
            } catch {
                let failure = CKError(converting: error, user: link.user)
                guard failure.code == .zoneNotFound || failure.code == .userDeletedZone else { throw failure }
                for id in zoneIDs { results[id] = .failure(failure) }
            }
        }
        return results
    }

    struct ModifyOutcome {
        var saves: [(CKRecord.ID, Result<CKRecord, CKError>)] = []
        var deletes: [(CKRecord.ID, Result<Void, CKError>)] = []
    }

    /// One `records/modify` per zone, in the order the zones first appear. A zone that fails
    /// as a whole (it does not exist, say) fails each of its items with that error.
    func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID], savePolicy: CKModifyRecordsOperation.RecordSavePolicy,
        atomically: Bool, via link: DeviceLink
    ) async throws(CKError) -> ModifyOutcome {
        var outcome = ModifyOutcome()
        let zones = Self.groupedByZone(recordsToSave.map(\.recordID) + recordIDsToDelete, \.zoneID).map(\.0)
        for zoneID in zones {
            let saves = recordsToSave.filter { $0.recordID.zoneID == zoneID }
            let deletes = recordIDsToDelete.filter { $0.zoneID == zoneID }
            let operations = saves.map { Self.operation($0, savePolicy, user: link.user) } + deletes.map {
                RecordOperation.delete($0.serverRecordID(user: link.user))
            }
            let serverZone = zoneID.serverZoneID(user: link.user)
            link.backEnd.tick()
            do {
                let answers = try await link.service.modifyRecords(
                    in: scope, zoneID: serverZone, operations: operations, atomic: atomically && zoneID.zoneName != CKRecordZone.ID.defaultZoneName,
                    clientChangeTokenData: nil)
                for (index, answer) in answers.enumerated() {
                    if index < saves.count {
                        let record = saves[index]
                        outcome.saves.append((
                            record.recordID,
                            answer.map { result in
                                if case .saved(let saved) = result { CKRecord(saved, user: link.user) } else { record }
                            }.mapError { CKError($0, user: link.user, clientRecord: record) }
                        ))
                    } else {
                        outcome.deletes.append((deletes[index - saves.count], answer.map { _ in () }.mapError { CKError($0, user: link.user) }))
                    }
                }
            } catch {
                let failure = CKError(converting: error, user: link.user)
                guard failure.code == .zoneNotFound || failure.code == .userDeletedZone else { throw failure }
                for record in saves { outcome.saves.append((record.recordID, .failure(failure))) }
                for id in deletes { outcome.deletes.append((id, .failure(failure))) }
            }
        }
        if !(recordsToSave.isEmpty && recordIDsToDelete.isEmpty) { link.backEnd.deliverPushes() }
        return outcome
    }

    /// How a save travels: its changed keys (or all of them, with `allKeys`) under the policy's
    /// operation type; keys set to `nil` are removed on the server.
    static func operation(_ record: CKRecord, _ policy: CKModifyRecordsOperation.RecordSavePolicy, user: String) -> RecordOperation {
        var server = record.serverRecord(user: user)
        if policy == .allKeys { return RecordOperation(type: .forceReplace, record: server) }
        let changed = record.changedKeys()
        server.fields = server.fields.filtered(to: changed)
        let removed = changed.filter { server.fields[$0] == nil }
        return RecordOperation(type: policy == .changedKeys ? .forceUpdate : .update, record: server, removedFieldNames: removed)
    }

    static func groupedByZone<T>(_ items: [T], _ zone: (T) -> CKRecordZone.ID) -> [(CKRecordZone.ID, [T])] {
        var order: [CKRecordZone.ID] = []
        var groups: [CKRecordZone.ID: [T]] = [:]
        for item in items {
            let id = zone(item)
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(item)
        }
        return order.map { ($0, groups[$0]!) }
    }
}
