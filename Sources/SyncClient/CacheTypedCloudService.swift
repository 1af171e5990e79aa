import Foundation
import SyncCore

/// A connection that tells the type of a deleted record from the device's
/// own cache.
///
/// CloudKit (and `syncscope serve`, which answers as CloudKit does) reports
/// a deleted record as `{"recordName", "deleted": true}`: no type. A client
/// that wants the type of a deleted record looks it up in what it has cached
/// — which is what this wrapper does, before the deletion is applied to the
/// cache, so that the sync engine, scenario transcripts and the inspector
/// still say "Note n1 deleted". A deletion of a record the device never had
/// keeps an empty type.
///
/// The cache is read from the caller's context only, the one the device's
/// sync engine uses the cache from; hence `@unchecked Sendable`, as for the
/// engine itself.
public struct CacheTypedCloudService: CloudService, @unchecked Sendable {
    public let base: any CloudService
    public let store: any LocalStore

    public init(base: any CloudService, store: any LocalStore) {
        self.base = base
        self.store = store
    }

    public var userRecordName: String { base.userRecordName }
    public var deviceID: String? { base.deviceID }

    private func cachedType(_ recordID: RecordID, in scope: DatabaseScope) -> String {
        (try? store.record(recordID, in: scope))?.recordType ?? ""
    }

    public func fetchRecordZoneChanges(
        in scope: DatabaseScope, _ requests: [ZoneChangesRequest]
    ) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        let results = try await base.fetchRecordZoneChanges(in: scope, requests)
        return results.map { result in
            guard case .success(var batch) = result else { return result }
            batch.changes = batch.changes.map { change in
                guard case .deleted(let id, let type) = change, type.isEmpty else { return change }
                return .deleted(id, recordType: cachedType(id, in: scope))
            }
            return .success(batch)
        }
    }

    public func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool, clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        let results = try await base.modifyRecords(
            in: scope, zoneID: zoneID, operations: operations, atomic: atomic, clientChangeTokenData: clientChangeTokenData)
        var sent: [String: String] = [:]
        for operation in operations where !operation.record.recordType.isEmpty {
            sent[operation.record.recordID.recordName] = operation.record.recordType
        }
        return results.map { result in
            guard case .success(.deleted(let id, let type)) = result, type.isEmpty else { return result }
            return .success(.deleted(id, recordType: sent[id.recordName] ?? cachedType(id, in: scope)))
        }
    }

    // MARK: Passed on

    public func modifyRecordZones(in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]) async throws -> [Result<RecordZone, CloudError>] {
        try await base.modifyRecordZones(in: scope, saving: saving, deleting: deleting)
    }

    public func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] {
        try await base.listRecordZones(in: scope)
    }

    public func lookupRecords(in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?) async throws -> [Result<Record, CloudError>] {
        try await base.lookupRecords(in: scope, zoneID: zoneID, recordNames: recordNames, desiredKeys: desiredKeys)
    }

    public func fetchDatabaseChanges(in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?) async throws -> DatabaseChangesBatch {
        try await base.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit)
    }

    public func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws {
        try await base.shareZone(zoneID, with: participants)
    }

    public func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws {
        try await base.revokeShare(zoneID, from: participants)
    }

    public func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws {
        try await base.purgeRecordZone(in: scope, zoneID)
    }

    public func encryptedDataReset() async throws {
        try await base.encryptedDataReset()
    }

    public func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        try await base.compactHistory(in: scope, zoneID: zoneID, keepLast: keepLast)
    }

    public func modifySubscriptions(in scope: DatabaseScope, saving: [Subscription], deleting: [String]) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        try await base.modifySubscriptions(in: scope, saving: saving, deleting: deleting)
    }

    public func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        try await base.fetchSubscriptions(in: scope, ids: ids)
    }

    public func registerForPushNotifications() async throws {
        try await base.registerForPushNotifications()
    }

    public func receivePushNotifications() async throws -> [CloudNotification] {
        try await base.receivePushNotifications()
    }
}
