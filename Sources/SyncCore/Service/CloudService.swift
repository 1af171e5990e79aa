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
}

extension CloudService {
    public func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation]
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        try await modifyRecords(in: scope, zoneID: zoneID, operations: operations, atomic: true, clientChangeTokenData: nil)
    }
}
