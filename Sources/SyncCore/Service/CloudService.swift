import Foundation

/// One user's connection, from one device, to one container and environment:
/// the interface the client side of sync talks to.
///
/// The in-process simulated server and the network client both implement it,
/// so the sync engine, the inspector and the scenario runner work the same
/// over either. Whole-request failures are thrown as ``CloudError``; per-item
/// failures come back in the results, in request order.
public protocol CloudService: Sendable {
    /// The user this connection acts as.
    var userRecordName: String { get }
    /// The device this connection speaks for; the server does not push a
    /// change's notifications back to the device that made it.
    var deviceID: String? { get }

    func modifyRecordZones(
        in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]
    ) async throws -> [Result<RecordZone, CloudError>]

    func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing]

    func modifyRecords(
        in scope: DatabaseScope,
        zoneID: RecordZoneID,
        operations: [RecordOperation],
        atomic: Bool,
        clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>]

    func lookupRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?
    ) async throws -> [Result<Record, CloudError>]

    func fetchDatabaseChanges(
        in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?
    ) async throws -> DatabaseChangesBatch

    func fetchRecordZoneChanges(
        in scope: DatabaseScope, _ requests: [ZoneChangesRequest]
    ) async throws -> [Result<ZoneChangesBatch, CloudError>]

    /// Shares a private zone of this user with other users (zone-wide share).
    func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws
    /// Stops sharing a zone with some users.
    func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws

    /// The user deleted this app's data in a zone from Settings.
    func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws
    /// The user reset their encrypted data: every private custom zone goes.
    func encryptedDataReset() async throws
    /// Moves the retention horizon: tokens from before the last `keepLast`
    /// changes expire. `nil` zone: every log of this user.
    func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws

    /// `subscriptions/modify`: saves (creates or replaces) and deletes this
    /// user's subscriptions in one database. Results: the saves, then the
    /// deletions, in request order.
    func modifySubscriptions(
        in scope: DatabaseScope, saving: [Subscription], deleting: [String]
    ) async throws -> [Result<SubscriptionOperationResult, CloudError>]
    /// `subscriptions/lookup` with IDs (results in their order), or
    /// `subscriptions/list` with `nil` (every subscription of this user in the database).
    func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>]
    /// Registers this connection's device for this user's push notifications
    /// in this container and environment (`tokens/create` + `tokens/register`).
    func registerForPushNotifications() async throws
    /// The notifications delivered to this device since it last asked, oldest
    /// first (the webcourier poll). Treat each as "something changed" and fetch.
    func receivePushNotifications() async throws -> [CloudNotification]
}

extension CloudService {
    public func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation]
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        try await modifyRecords(in: scope, zoneID: zoneID, operations: operations, atomic: true, clientChangeTokenData: nil)
    }
}
