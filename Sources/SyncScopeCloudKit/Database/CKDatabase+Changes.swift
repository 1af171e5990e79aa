import Foundation
import SyncCore

extension CKDatabase {
    public func recordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = 0
    ) async throws -> (
        modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>],
        deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool
    ) {
        let batch = try await recordZoneChanges(
            inZoneWith: zoneID, since: changeToken, desiredKeys: desiredKeys, resultsLimit: resultsLimit, via: try link())
        var modifications: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>] = [:]
        for modification in batch.modifications { modifications[modification.record.recordID] = .success(modification) }
        return (modifications, batch.deletions, batch.changeToken, batch.moreComing)
    }

    public func databaseChanges(
        since changeToken: CKServerChangeToken?, resultsLimit: Int = 0
    ) async throws -> (
        modifications: [CKDatabase.DatabaseChange.Modification], deletions: [CKDatabase.DatabaseChange.Deletion],
        changeToken: CKServerChangeToken, moreComing: Bool
    ) {
        let batch = try await databaseChanges(since: changeToken, resultsLimit: resultsLimit, via: try link())
        return (batch.modifications, batch.deletions, batch.changeToken, batch.moreComing)
    }

    // MARK: Through one device

    struct ZoneChanges: Sendable {
        var modifications: [CKDatabase.RecordZoneChange.Modification]
        var deletions: [CKDatabase.RecordZoneChange.Deletion]
        var changeToken: CKServerChangeToken
        var moreComing: Bool
    }

    func recordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?, desiredKeys: [String]?, resultsLimit: Int,
        via link: DeviceLink
    ) async throws(CKError) -> ZoneChanges {
        let request = ZoneChangesRequest(
            zoneID: zoneID.serverZoneID(user: link.user), previousServerChangeToken: changeToken?.token,
            resultsLimit: resultsLimit > 0 ? resultsLimit : nil, desiredKeys: desiredKeys)
        let answers = try await run(link) { try await link.service.fetchRecordZoneChanges(in: scope, [request]) }
        guard let answer = answers.first else { throw CKError(.internalError) }
        let batch: ZoneChangesBatch
        switch answer {
        case .success(let b): batch = b
        case .failure(let error): throw CKError(error, user: link.user)
        }
        var modifications: [CKDatabase.RecordZoneChange.Modification] = []
        var deletions: [CKDatabase.RecordZoneChange.Deletion] = []
        for change in batch.changes {
            switch change {
            case .changed(let record): modifications.append(.init(record: CKRecord(record, user: link.user)))
            case .deleted(let id, let type): deletions.append(.init(recordID: CKRecord.ID(id, user: link.user), recordType: type))
            }
        }
        return ZoneChanges(
            modifications: modifications, deletions: deletions, changeToken: CKServerChangeToken(batch.serverChangeToken), moreComing: batch.moreComing)
    }

    struct DatabaseChanges: Sendable {
        var modifications: [CKDatabase.DatabaseChange.Modification]
        var deletions: [CKDatabase.DatabaseChange.Deletion]
        var changeToken: CKServerChangeToken
        var moreComing: Bool
    }

    func databaseChanges(since changeToken: CKServerChangeToken?, resultsLimit: Int, via link: DeviceLink) async throws(CKError) -> DatabaseChanges {
        let batch = try await run(link) {
            try await link.service.fetchDatabaseChanges(in: scope, since: changeToken?.token, resultsLimit: resultsLimit > 0 ? resultsLimit : nil)
        }
        var modifications: [CKDatabase.DatabaseChange.Modification] = []
        var deletions: [CKDatabase.DatabaseChange.Deletion] = []
        for change in batch.changes {
            switch change {
            case .zoneChanged(let id): modifications.append(.init(zoneID: CKRecordZone.ID(id, user: link.user)))
            case .zoneRemoved(let id, let reason):
                let why: CKDatabase.DatabaseChange.Deletion.Reason =
                    switch reason {
                    case .deleted: .deleted
                    case .purged: .purged
                    case .encryptedDataReset: .encryptedDataReset
                    }
                deletions.append(.init(zoneID: CKRecordZone.ID(id, user: link.user), reason: why))
            }
        }
        return DatabaseChanges(
            modifications: modifications, deletions: deletions, changeToken: CKServerChangeToken(batch.serverChangeToken), moreComing: batch.moreComing)
    }
}
