import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing
import SyncSQLiteStore

/// A simulated server and helpers to change it directly (as another device would).
struct Fixture {
    let clock = VirtualClock()
    let server: SimulatedServer

    init(configuration: ServerConfiguration = ServerConfiguration()) {
        server = SimulatedServer(configuration: configuration, clock: clock)
    }

    func connect(_ user: String = "alice", device: String) throws -> InProcessCloudService {
        try server.connect(user: user, deviceID: device)
    }

    static func zone(_ name: String, owner: String = "alice") -> RecordZoneID {
        RecordZoneID(zoneName: name, ownerName: owner)
    }

    static func id(_ name: String, in zone: RecordZoneID) -> RecordID {
        RecordID(recordName: name, zoneID: zone)
    }

    static func note(_ name: String, in zone: RecordZoneID, _ fields: RecordFields = ["title": "t"]) -> Record {
        Record(recordID: id(name, in: zone), recordType: "Note", fields: fields)
    }
}

extension CloudService {
    func createZones(_ zones: [RecordZoneID]) async throws {
        for result in try await modifyRecordZones(in: .private, saving: zones, deleting: []) { _ = try result.get() }
    }

    func deleteZones(_ zones: [RecordZoneID]) async throws {
        for result in try await modifyRecordZones(in: .private, saving: [], deleting: zones) { _ = try result.get() }
    }

    /// Saves records unconditionally (`.allKeys`) and returns them as saved.
    @discardableResult
    func put(_ records: [Record], scope: DatabaseScope = .private) async throws -> [Record] {
        guard let zoneID = records.first?.recordID.zoneID else { return [] }
        return try await modifyRecords(in: scope, zoneID: zoneID, operations: records.map { .save($0, policy: .allKeys) }).map { result in
            guard case .saved(let record) = try result.get() else { throw CloudError(.internalError, "expected a save") }
            return record
        }
    }

    func remove(_ ids: [RecordID], scope: DatabaseScope = .private) async throws {
        guard let zoneID = ids.first?.zoneID else { return }
        for result in try await modifyRecords(in: scope, zoneID: zoneID, operations: ids.map { .delete($0) }) { _ = try result.get() }
    }

    /// Every record of a zone, from a fetch with no token.
    func serverRecords(in zoneID: RecordZoneID, scope: DatabaseScope = .private) async throws -> [Record] {
        let operation = FetchRecordZoneChangesOperation(service: self, scope: scope, recordZoneIDs: [zoneID])
        let result = try await operation.fetch()
        if case .failure(let error)? = result.result(for: zoneID) { throw error }
        return result.changedRecords.sorted { $0.recordID < $1.recordID }
    }

    func serverZoneIDs(scope: DatabaseScope = .private) async throws -> [RecordZoneID] {
        try await listRecordZones(in: scope).map(\.zoneID).filter { !$0.isDefaultZone }.sorted()
    }
}

/// Collects the events of an engine.
final class EventLog {
    var events: [SyncEvent] = []
    /// Called after each event is logged: lets a test act in the middle of a sync step.
    var onEvent: ((SyncEvent) -> Void)?

    var handler: (SyncEvent) -> Void {
        { event in
            self.events.append(event)
            self.onEvent?(event)
        }
    }

    var tokenReceipts: [TokenReceipt] {
        events.compactMap { if case .tokenReceived(let receipt) = $0 { receipt } else { nil } }
    }
}

extension SimulatedServer {
    /// Saves records unconditionally right now, as `user` on `deviceID` would:
    /// synchronous, so an event handler can change the server in the middle of a fetch.
    func putNow(_ records: [Record], user: String = "alice", deviceID: String = "laptop", scope: DatabaseScope = .private) throws {
        guard let zoneID = records.first?.recordID.zoneID else { return }
        let results = try withEngine { (engine) throws(CloudError) in
            try engine.modifyRecords(
                caller: Caller(user: user, deviceID: deviceID),
                database: DatabaseID(container: "iCloud.com.example.SyncScope", scope: scope), zoneID: zoneID,
                operations: records.map { .save($0, policy: .allKeys) })
        }
        for result in results { _ = try result.get() }
    }

    /// Moves the clock to each pending delivery in turn until nothing is on its
    /// way; returns every delivery, oldest first.
    func deliverEverything(clock: VirtualClock) -> [Delivery] {
        var deliveries: [Delivery] = []
        while let next = nextDeliveryTime {
            clock.advance(to: next)
            deliveries += deliverDue()
        }
        return deliveries
    }
}

extension CloudService {
    /// Saves subscriptions in one database, failing on the first item that fails.
    func subscribe(_ subscriptions: [Subscription], in scope: DatabaseScope = .private) async throws {
        for result in try await modifySubscriptions(in: scope, saving: subscriptions, deleting: []) { _ = try result.get() }
    }
}

/// The kinds of local store every behaviour test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite

    var testDescription: String { rawValue }

    func make(_ directory: TemporaryDirectory, name: String = "device") throws -> any LocalStore {
        switch self {
        case .memory: InMemoryLocalStore()
        case .sqlite: try SQLiteLocalStore(path: directory.path(name + ".sqlite"))
        }
    }
}

/// A fresh directory under the system's temporary directory, removed on deinit.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

struct InjectedFault: Error, Equatable {}

/// A CloudService that runs a hook after some calls, to create situations
/// that happen between two steps of a sync (another device acting meanwhile).
struct HookedService: CloudService {
    let base: InProcessCloudService
    let afterDatabaseChanges: @Sendable () async throws -> Void

    var userRecordName: String { base.userRecordName }
    var deviceID: String? { base.deviceID }

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
    func fetchDatabaseChanges(in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?) async throws -> DatabaseChangesBatch {
        let batch = try await base.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit)
        try await afterDatabaseChanges()
        return batch
    }
    func fetchRecordZoneChanges(in scope: DatabaseScope, _ requests: [ZoneChangesRequest]) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        try await base.fetchRecordZoneChanges(in: scope, requests)
    }
    func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws { try await base.shareZone(zoneID, with: participants) }
    func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws { try await base.revokeShare(zoneID, from: participants) }
    func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws { try await base.purgeRecordZone(in: scope, zoneID) }
    func encryptedDataReset() async throws { try await base.encryptedDataReset() }
    func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        try await base.compactHistory(in: scope, zoneID: zoneID, keepLast: keepLast)
    }
    func modifySubscriptions(
        in scope: DatabaseScope, saving: [Subscription], deleting: [String]
    ) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        try await base.modifySubscriptions(in: scope, saving: saving, deleting: deleting)
    }
    func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        try await base.fetchSubscriptions(in: scope, ids: ids)
    }
    func registerForPushNotifications() async throws { try await base.registerForPushNotifications() }
    func receivePushNotifications() async throws -> [CloudNotification] { try await base.receivePushNotifications() }
}

/// A store that lets a test look at each batch before the real store applies it.
final class ObservedStore: LocalStore {
    let base: any LocalStore
    var beforeApply: ((StoreBatch) -> Void)?

    init(_ base: any LocalStore) {
        self.base = base
    }

    var faultInjector: ((StoreFaultPoint) throws -> Void)? {
        get { base.faultInjector }
        set { base.faultInjector = newValue }
    }

    func apply(_ batch: StoreBatch) throws {
        beforeApply?(batch)
        try base.apply(batch)
    }

    func record(_ recordID: RecordID, in scope: DatabaseScope) throws -> Record? { try base.record(recordID, in: scope) }
    func records(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [Record] { try base.records(in: scope, zoneID: zoneID) }
    func allRecords(in scope: DatabaseScope) throws -> [Record] { try base.allRecords(in: scope) }
    func staleRecordIDs(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [RecordID] { try base.staleRecordIDs(in: scope, zoneID: zoneID) }
    func knownZones(in scope: DatabaseScope) throws -> [KnownZone] { try base.knownZones(in: scope) }
    func purgedZones(in scope: DatabaseScope) throws -> [RecordZoneID] { try base.purgedZones(in: scope) }
    func databaseToken(for scope: DatabaseScope) throws -> ServerChangeToken? { try base.databaseToken(for: scope) }
    func zoneToken(for zoneID: RecordZoneID, in scope: DatabaseScope) throws -> ServerChangeToken? { try base.zoneToken(for: zoneID, in: scope) }
    func tokenCache() throws -> TokenCache { try base.tokenCache() }
    func pendingChanges() throws -> [PendingChange] { try base.pendingChanges() }
}
