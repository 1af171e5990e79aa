import Foundation
import Synchronization
import SyncCore

/// `CloudService` backed directly by a ``SimulatedServer`` in this process.
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
        try await faulted(call("zones/modify", scope, zones: (saving + deleting).map(\.zoneName))) { (e) throws(CloudError) in
            try e.modifyRecordZones(caller: caller, database: database(scope), saving: saving, deleting: deleting)
        }
    }

    public func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] {
        try await faulted(call("zones/list", scope)) { (e) throws(CloudError) in try e.listRecordZones(caller: caller, database: database(scope)) }
    }

    public func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool,
        clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        guard let decision = server.faultDecision(for: call("records/modify", scope, zones: [zoneID.zoneName])) else {
            return try run { (e) throws(CloudError) in
                try e.modifyRecords(
                    caller: caller, database: database(scope), zoneID: zoneID, operations: operations, atomic: atomic,
                    clientChangeTokenData: clientChangeTokenData)
            }
        }
        return try await modifyRecords(
            in: scope, zoneID: zoneID, operations: operations, atomic: atomic, clientChangeTokenData: clientChangeTokenData, faults: decision)
    }

    public func lookupRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?
    ) async throws -> [Result<Record, CloudError>] {
        try await faulted(call("records/lookup", scope, zones: [zoneID.zoneName])) { (e) throws(CloudError) in
            try e.lookupRecords(caller: caller, database: database(scope), zoneID: zoneID, recordNames: recordNames, desiredKeys: desiredKeys)
        }
    }

    public func fetchDatabaseChanges(
        in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?
    ) async throws -> DatabaseChangesBatch {
        let decision = server.faultDecision(for: call("changes/database", scope))
        if let decision {
            await server.wait(decision.latency)
            if case .error(let error)? = decision.failure { throw error }
            // Read lag: the changes are not visible yet, so nothing is new since the caller's token.
            if decision.readLag != nil, let token { return DatabaseChangesBatch(changes: [], serverChangeToken: token, moreComing: false) }
        }
        return try run { (e) throws(CloudError) in
            try e.fetchDatabaseChanges(caller: caller, database: database(scope), since: token, resultsLimit: resultsLimit)
        }
    }

    public func fetchRecordZoneChanges(
        in scope: DatabaseScope, _ requests: [ZoneChangesRequest]
    ) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        try await faulted(call("changes/zone", scope, zones: requests.map(\.zoneID.zoneName))) { (e) throws(CloudError) in
            try e.fetchRecordZoneChanges(caller: caller, database: database(scope), requests)
        }
    }

    public func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws {
        _ = try run { (e) throws(CloudError) in
            try e.shareRecordZone(caller: caller, database: database(.private), zoneID: zoneID, participants: participants, revoke: false)
        }
    }

    public func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws {
        _ = try run { (e) throws(CloudError) in
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

    // MARK: Subscriptions and push

    public func modifySubscriptions(
        in scope: DatabaseScope, saving: [Subscription], deleting: [String]
    ) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        let db = database(scope)
        let decision = server.faultDecision(for: call("subscriptions/modify", scope))
        if let decision {
            await server.wait(decision.latency)
            if case .error(let error)? = decision.failure { throw error }
        }
        let results = try server.withCore { (core) throws(CloudError) in
            try core.engine.checkCaller(caller)
            return try core.push.modifySubscriptions(user: caller.user, database: db, saving: saving, deleting: deleting)
        }
        if decision?.failure == .ambiguousCommit { throw CloudError.answerLost("subscriptions/modify") }
        return results
    }

    public func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        let db = database(scope)
        if let decision = server.faultDecision(for: call("subscriptions/lookup", scope)) {
            await server.wait(decision.latency)
            if case .error(let error)? = decision.failure { throw error }
        }
        return try server.withCore { (core) throws(CloudError) in
            try core.engine.checkCaller(caller)
            return core.push.fetchSubscriptions(user: caller.user, database: db, subscriptionIDs: ids)
        }
    }

    public func registerForPushNotifications() async throws {
        try server.registerDevice(user: caller.user, deviceID: try requireDevice(), container: container, environment: environment)
    }

    public func receivePushNotifications() async throws -> [CloudNotification] {
        let deviceID = try requireDevice()
        _ = server.deliverDue()
        return try server.receiveNotifications(for: deviceID)
    }

    private func requireDevice() throws(CloudError) -> String {
        guard let deviceID = caller.deviceID else {
            throw CloudError(
                .invalidArguments, "This connection has no device ID; connect with a deviceID to receive push notifications.")
        }
        return deviceID
    }
}
