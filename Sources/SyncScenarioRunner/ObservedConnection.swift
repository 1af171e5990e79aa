import Foundation
import Synchronization
import SyncCore

/// A device's connection that passes every call on unchanged and tells its
/// ``ConnectionTap`` about each change fetch and its answer — the requests
/// the device's sync engine really made, with their real `resultsLimit`.
struct ObservedConnection: CloudService {
    let base: any CloudService
    let deviceName: String
    let tap: ConnectionTap

    var userRecordName: String { base.userRecordName }
    var deviceID: String? { base.deviceID }

    func fetchDatabaseChanges(in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?) async throws -> DatabaseChangesBatch {
        let batch = try await base.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit)
        tap.append(.database(device: deviceName, scope: scope, since: token, batch))
        return batch
    }

    func fetchRecordZoneChanges(in scope: DatabaseScope, _ requests: [ZoneChangesRequest]) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        let results = try await base.fetchRecordZoneChanges(in: scope, requests)
        tap.append(.zones(device: deviceName, scope: scope, requests: requests, results: results))
        return results
    }

    // MARK: Passed on unobserved

    func modifyRecordZones(in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]) async throws -> [Result<RecordZone, CloudError>] {
        try await base.modifyRecordZones(in: scope, saving: saving, deleting: deleting)
    }

    func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] {
        try await base.listRecordZones(in: scope)
    }

    func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool, clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        try await base.modifyRecords(in: scope, zoneID: zoneID, operations: operations, atomic: atomic, clientChangeTokenData: clientChangeTokenData)
    }

    func lookupRecords(in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?) async throws -> [Result<Record, CloudError>] {
        try await base.lookupRecords(in: scope, zoneID: zoneID, recordNames: recordNames, desiredKeys: desiredKeys)
    }

    func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws {
        try await base.shareZone(zoneID, with: participants)
    }

    func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws {
        try await base.revokeShare(zoneID, from: participants)
    }

    func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws {
        try await base.purgeRecordZone(in: scope, zoneID)
    }

    func encryptedDataReset() async throws {
        try await base.encryptedDataReset()
    }

    func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        try await base.compactHistory(in: scope, zoneID: zoneID, keepLast: keepLast)
    }

    func modifySubscriptions(in scope: DatabaseScope, saving: [Subscription], deleting: [String]) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        try await base.modifySubscriptions(in: scope, saving: saving, deleting: deleting)
    }

    func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        try await base.fetchSubscriptions(in: scope, ids: ids)
    }

    func registerForPushNotifications() async throws {
        try await base.registerForPushNotifications()
    }

    func receivePushNotifications() async throws -> [CloudNotification] {
        try await base.receivePushNotifications()
    }
}
