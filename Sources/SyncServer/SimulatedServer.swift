import Foundation
import Synchronization
import SyncCore

/// The engine and the push layer, kept together so that one lock covers a
/// commit and the notifications it fires.
public final class ServerCore {
    public let engine: ServerEngine
    public let push: PushEngine
    /// The fault rules in force; `nil` until a plan is first installed
    /// (see `ServerCore+Faults.swift`): then no call pays for faults.
    public internal(set) var faults: FaultInjector?

    public init(engine: ServerEngine, push: PushEngine) {
        self.engine = engine
        self.push = push
        engine.commitObservers.append { commit in push.handle(commit) }
        engine.databaseChangeObservers.append { event in push.handle(event) }
    }
}

/// A ``ServerEngine`` and its ``PushEngine`` that can be shared: every call
/// runs under one lock, so calls are applied one at a time, in the order they arrive.
public final class SimulatedServer: Sendable {
    private let core: Mutex<ServerCore>
    public let clock: any SyncClock

    public init(
        configuration: ServerConfiguration = ServerConfiguration(), push: PushConfiguration = PushConfiguration(),
        clock: any SyncClock = VirtualClock()
    ) {
        self.clock = clock
        core = Mutex(ServerCore(
            engine: ServerEngine(configuration: configuration, clock: clock),
            push: PushEngine(configuration: push, seed: configuration.seed)))
    }

    /// Runs `body` with exclusive access to the engine.
    public func withEngine<T: Sendable, E: Error>(_ body: (ServerEngine) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout sending ServerCore) throws(E) -> sending T in try body(core.engine) }
    }

    /// Runs `body` with exclusive access to the push layer.
    public func withPush<T: Sendable, E: Error>(_ body: (PushEngine) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout sending ServerCore) throws(E) -> sending T in try body(core.push) }
    }

    /// Runs `body` with exclusive access to the engine and the push layer together.
    public func withCore<T: Sendable, E: Error>(_ body: (ServerCore) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout sending ServerCore) throws(E) -> sending T in try body(core) }
    }

    /// A connection for `user` (created if new) from `deviceID`.
    public func connect(
        user: String, deviceID: String? = nil, container: String = "iCloud.com.example.SyncScope",
        environment: ContainerEnvironment = .development
    ) throws(CloudError) -> InProcessCloudService {
        try withEngine { (engine) throws(CloudError) in _ = try engine.addUser(user) }
        return InProcessCloudService(server: self, caller: Caller(user: user, deviceID: deviceID), container: container, environment: environment)
    }

    // MARK: Push

    /// Registers `deviceID` for push notifications of `user` (created if new)
    /// in one container and environment (`tokens/create` + `tokens/register`).
    public func registerDevice(
        user: String, deviceID: String, container: String = "iCloud.com.example.SyncScope",
        environment: ContainerEnvironment = .development
    ) throws(CloudError) {
        let now = clock.now()
        try withCore { (core) throws(CloudError) in
            try core.engine.addUser(user)
            try core.push.registerDevice(deviceID, user: user, container: container, environment: environment, now: now)
        }
    }

    /// Takes a device offline or back online; first delivers what was due.
    @discardableResult
    public func setOnline(_ deviceID: String, _ online: Bool) throws(CloudError) -> [Delivery] {
        let now = clock.now()
        return try withPush { (push) throws(CloudError) in try push.setOnline(deviceID, online, now: now) }
    }

    /// When the next notification reaches a device; `nil`: none is on its way.
    public var nextDeliveryTime: Milliseconds? { withPush { $0.nextDeliveryTime } }

    /// Delivers every notification due by the clock's now.
    @discardableResult
    public func deliverDue() -> [Delivery] {
        let now = clock.now()
        return withPush { $0.deliverDue(now: now) }
    }

    /// What is on its way to a device, or held for it while it is offline.
    public func pendingNotifications(for deviceID: String) -> [PendingNotification] {
        let now = clock.now()
        return withPush { $0.pendingNotifications(for: deviceID, now: now) }
    }

    /// Takes the notifications delivered to a device since it last asked.
    public func receiveNotifications(for deviceID: String) throws(CloudError) -> [CloudNotification] {
        try withPush { (push) throws(CloudError) in try push.receiveNotifications(for: deviceID) }
    }

    /// Takes the push layer's events since the last call.
    public func drainPushEvents() -> [PushEvent] { withPush { $0.drainEvents() } }
}

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
