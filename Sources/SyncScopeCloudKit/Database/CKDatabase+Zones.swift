import Foundation
import SyncCore

extension CKDatabase {
    public func recordZone(for zoneID: CKRecordZone.ID) async throws -> CKRecordZone {
        guard let result = try await recordZones(for: [zoneID])[zoneID] else { throw CKError(.zoneNotFound) }
        return try result.get()
    }

    public func recordZones(for ids: [CKRecordZone.ID]) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] {
        let all = Set(try await allRecordZones().map(\.zoneID))
        var results: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        for id in ids {
            results[id] =
                all.contains(id)
                ? .success(CKRecordZone(zoneID: id))
                : .failure(CKError(.zoneNotFound, userInfo: [NSLocalizedDescriptionKey: "Zone '\(id.zoneName)' does not exist."]))
        }
        return results
    }

    public func allRecordZones() async throws -> [CKRecordZone] {
        let link = try link()
        return try await run(link) {
            try await link.service.listRecordZones(in: scope).map { CKRecordZone(zoneID: CKRecordZone.ID($0.zoneID, user: link.user)) }
        }
    }

    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone {
        let (saved, _) = try await modifyRecordZones(saving: [zone], deleting: [])
        guard let result = saved[zone.zoneID] else { throw CKError(.internalError) }
        return try result.get()
    }

    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        let (_, deleted) = try await modifyRecordZones(saving: [], deleting: [zoneID])
        guard let result = deleted[zoneID] else { throw CKError(.internalError) }
        try result.get()
        return zoneID
    }

    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID]
    ) async throws -> (saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>]) {
        let outcome = try await modifyRecordZones(saving: recordZonesToSave, deleting: recordZoneIDsToDelete, via: try link())
        var saves: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        for (id, result) in outcome.saves { saves[id] = result.mapError { $0 } }
        var deletes: [CKRecordZone.ID: Result<Void, any Error>] = [:]
        for (id, result) in outcome.deletes { deletes[id] = result.mapError { $0 } }
        return (saves, deletes)
    }

    struct ZoneOutcome {
        var saves: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] = []
        var deletes: [(CKRecordZone.ID, Result<Void, CKError>)] = []
    }

    func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID], via link: DeviceLink
    ) async throws(CKError) -> ZoneOutcome {
        var outcome = ZoneOutcome()
        guard !(recordZonesToSave.isEmpty && recordZoneIDsToDelete.isEmpty) else { return outcome }
        let answers = try await run(link) {
            try await link.service.modifyRecordZones(
                in: scope, saving: recordZonesToSave.map { $0.zoneID.serverZoneID(user: link.user) },
                deleting: recordZoneIDsToDelete.map { $0.serverZoneID(user: link.user) })
        }
        for (index, answer) in answers.enumerated() {
            if index < recordZonesToSave.count {
                let zone = recordZonesToSave[index]
                outcome.saves.append((zone.zoneID, answer.map { _ in zone }.mapError { CKError($0, user: link.user) }))
            } else {
                let id = recordZoneIDsToDelete[index - recordZonesToSave.count]
                outcome.deletes.append((id, answer.map { _ in () }.mapError { CKError($0, user: link.user) }))
            }
        }
        link.backEnd.deliverPushes()
        return outcome
    }
}
