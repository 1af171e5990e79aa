import Foundation
import SyncRemoteWorld
import Synchronization
import SyncCore
import SyncSimulation
import SyncWorlds
import Testing

/// Notes each zone fetch a device's connection makes: from which token, and how many changes came back.
final class FetchLog: Sendable {
    struct ZoneFetch: Sendable, Hashable {
        var zoneName: String
        var fromToken: ServerChangeToken?
        var changes: [String]
    }

    private let fetches = Mutex<[ZoneFetch]>([])
    private let databaseFetches = Mutex<[ServerChangeToken?]>([])

    func append(_ fetch: ZoneFetch) { fetches.withLock { $0.append(fetch) } }
    func appendDatabase(_ token: ServerChangeToken?) { databaseFetches.withLock { $0.append(token) } }
    var zoneFetches: [ZoneFetch] { fetches.withLock { $0 } }
    var databaseFetchTokens: [ServerChangeToken?] { databaseFetches.withLock { $0 } }

    var wrapper: @Sendable (any CloudService, String) -> any CloudService {
        { [self] service, _ in LoggingConnection(base: service, log: self) }
    }
}

/// Forwards every call, noting change fetches in a ``FetchLog``.
struct LoggingConnection: CloudService {
    let base: any CloudService
    let log: FetchLog

    var userRecordName: String { base.userRecordName }
    var deviceID: String? { base.deviceID }

    func fetchDatabaseChanges(in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?) async throws -> DatabaseChangesBatch {
        if scope == .private { log.appendDatabase(token) }
        return try await base.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit)
    }
    func fetchRecordZoneChanges(in scope: DatabaseScope, _ requests: [ZoneChangesRequest]) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        let results = try await base.fetchRecordZoneChanges(in: scope, requests)
        for (request, result) in zip(requests, results) {
            let names = (try? result.get().changes.map(\.recordID.recordName)) ?? []
            log.append(FetchLog.ZoneFetch(zoneName: request.zoneID.zoneName, fromToken: request.previousServerChangeToken, changes: names))
        }
        return results
    }
    func modifyRecordZones(in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]) async throws -> [Result<RecordZone, CloudError>] {
        try await base.modifyRecordZones(in: scope, saving: saving, deleting: deleting)
    }
    func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] { try await base.listRecordZones(in: scope) }
    func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool, clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        try await base.modifyRecords(in: scope, zoneID: zoneID, operations: operations, atomic: atomic, clientChangeTokenData: clientChangeTokenData)
    }
    func lookupRecords(in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?) async throws -> [Result<Record, CloudError>] {
        try await base.lookupRecords(in: scope, zoneID: zoneID, recordNames: recordNames, desiredKeys: desiredKeys)
    }
    func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws { try await base.shareZone(zoneID, with: participants) }
    func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws { try await base.revokeShare(zoneID, from: participants) }
    func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws { try await base.purgeRecordZone(in: scope, zoneID) }
    func encryptedDataReset() async throws { try await base.encryptedDataReset() }
    func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        try await base.compactHistory(in: scope, zoneID: zoneID, keepLast: keepLast)
    }
    func modifySubscriptions(in scope: DatabaseScope, saving: [Subscription], deleting: [String]) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        try await base.modifySubscriptions(in: scope, saving: saving, deleting: deleting)
    }
    func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        try await base.fetchSubscriptions(in: scope, ids: ids)
    }
    func registerForPushNotifications() async throws { try await base.registerForPushNotifications() }
    func receivePushNotifications() async throws -> [CloudNotification] { try await base.receivePushNotifications() }
}

extension ServerProcess {
    /// A device of `user` on this server (in memory unless given a folder), started.
    func remoteDevice(
        _ name: String, user: String = "alice", data: URL? = nil, log: FetchLog? = nil, subscribe: Bool = true,
        environment: ContainerEnvironment = .development
    ) async throws -> RemoteWorld {
        try await RemoteWorld.connect(RemoteDeviceSetup(
            serverURL: baseURL, webAuthToken: try #require(tokens[user]), user: user, name: name, dataDirectory: data,
            container: ServerProcess.container, environment: environment, subscribeToDatabases: subscribe, pollTimeout: 5,
            connectionWrapper: log?.wrapper))
    }
}

extension RemoteWorld {
    /// Ticks the world whenever its long-poll hears something (at least once
    /// a second) until `condition` holds, for at most `limit`.
    @discardableResult
    func tick(until condition: (RemoteWorld) -> Bool, limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            await advance(by: 0)
            if condition(self) { return true }
            if ContinuousClock.now >= deadline { return false }
            _ = await waitForPushActivity(timeout: .seconds(1))
        }
    }
}

func temporaryFolder(_ label: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-\(label)-\(UUID().uuidString)")
}
