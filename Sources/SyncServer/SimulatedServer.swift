import Foundation
import Synchronization
import SyncCore

/// A ``ServerEngine`` that can be shared: every call runs under one lock, so
/// calls are applied one at a time, in the order they arrive.
public final class SimulatedServer: Sendable {
    private let engine: Mutex<ServerEngine>
    public let clock: any SyncClock

    public init(configuration: ServerConfiguration = ServerConfiguration(), clock: any SyncClock = VirtualClock()) {
        self.clock = clock
        engine = Mutex(ServerEngine(configuration: configuration, clock: clock))
    }

    /// Runs `body` with exclusive access to the engine.
    public func withEngine<T: Sendable, E: Error>(_ body: (ServerEngine) throws(E) -> T) throws(E) -> T {
        try engine.withLock { (engine: inout sending ServerEngine) throws(E) -> sending T in try body(engine) }
    }

    /// A connection for `user` (created if new) from `deviceID`.
    public func connect(
        user: String, deviceID: String? = nil, container: String = "iCloud.com.example.SyncScope",
        environment: ContainerEnvironment = .development
    ) throws(CloudError) -> InProcessCloudService {
        try withEngine { (engine) throws(CloudError) in _ = try engine.addUser(user) }
        return InProcessCloudService(server: self, caller: Caller(user: user, deviceID: deviceID), container: container, environment: environment)
    }
}

/// ``CloudService`` backed directly by a ``SimulatedServer`` in this process.
/// Calls never suspend, so a simulation driven from one task is deterministic.
public struct InProcessCloudService: CloudService {
    public let server: SimulatedServer
    public let caller: Caller
    public let container: String
    public let environment: ContainerEnvironment

    public init(server: SimulatedServer, caller: Caller, container: String, environment: ContainerEnvironment) {
        self.server = server
        self.caller = caller
        self.container = container
        self.environment = environment
    }

    public var userRecordName: String { caller.user }
    public var deviceID: String? { caller.deviceID }

    private func database(_ scope: DatabaseScope) -> DatabaseID {
        DatabaseID(container: container, environment: environment, scope: scope)
    }

    private func run<T: Sendable>(_ body: (ServerEngine) throws(CloudError) -> T) throws(CloudError) -> T {
        try server.withEngine(body)
    }

    public func modifyRecordZones(
        in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]
    ) async throws -> [Result<RecordZone, CloudError>] {
        try run { (e) throws(CloudError) in try e.modifyRecordZones(caller: caller, database: database(scope), saving: saving, deleting: deleting) }
    }

    public func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] {
        try run { (e) throws(CloudError) in try e.listRecordZones(caller: caller, database: database(scope)) }
    }

    public func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool,
        clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        try run { (e) throws(CloudError) in
            try e.modifyRecords(
                caller: caller, database: database(scope), zoneID: zoneID, operations: operations, atomic: atomic,
                clientChangeTokenData: clientChangeTokenData)
        }
    }

    public func lookupRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?
    ) async throws -> [Result<Record, CloudError>] {
        try run { (e) throws(CloudError) in
            try e.lookupRecords(caller: caller, database: database(scope), zoneID: zoneID, recordNames: recordNames, desiredKeys: desiredKeys)
        }
    }

    public func fetchDatabaseChanges(
        in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?
    ) async throws -> DatabaseChangesBatch {
        try run { (e) throws(CloudError) in
            try e.fetchDatabaseChanges(caller: caller, database: database(scope), since: token, resultsLimit: resultsLimit)
        }
    }

    public func fetchRecordZoneChanges(
        in scope: DatabaseScope, _ requests: [ZoneChangesRequest]
    ) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        try run { (e) throws(CloudError) in try e.fetchRecordZoneChanges(caller: caller, database: database(scope), requests) }
    }

    public func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws {
        try run { (e) throws(CloudError) in
            try e.shareRecordZone(caller: caller, database: database(.private), zoneID: zoneID, participants: participants, revoke: false)
        }
    }

    public func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws {
        try run { (e) throws(CloudError) in
            try e.shareRecordZone(caller: caller, database: database(.private), zoneID: zoneID, participants: participants, revoke: true)
        }
    }

    public func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws {
        try run { (e) throws(CloudError) in try e.purgeRecordZone(caller: caller, database: database(scope), zoneID: zoneID) }
    }

    public func encryptedDataReset() async throws {
        try run { (e) throws(CloudError) in try e.encryptedDataReset(caller: caller, database: database(.private)) }
    }

    public func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        try run { (e) throws(CloudError) in
            try e.compactHistory(caller: caller, database: database(.private), scope: scope, zoneID: zoneID, keepLast: keepLast)
        }
    }
}
