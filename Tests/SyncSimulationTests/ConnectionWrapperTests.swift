import Foundation
import Synchronization
import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing

/// A connection that forwards every call and notes which device made it and what it was.
struct RecordingConnection: CloudService {
    let base: any CloudService
    let deviceName: String
    let log: CallLog

    var userRecordName: String { base.userRecordName }
    var deviceID: String? { base.deviceID }

    private func note(_ call: String) { log.append("\(deviceName): \(call)") }

    func modifyRecordZones(in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]) async throws -> [Result<RecordZone, CloudError>] {
        note("zones/modify")
        return try await base.modifyRecordZones(in: scope, saving: saving, deleting: deleting)
    }
    func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] {
        note("zones/list")
        return try await base.listRecordZones(in: scope)
    }
    func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool, clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        note("records/modify")
        return try await base.modifyRecords(in: scope, zoneID: zoneID, operations: operations, atomic: atomic, clientChangeTokenData: clientChangeTokenData)
    }
    func lookupRecords(in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?) async throws -> [Result<Record, CloudError>] {
        note("records/lookup")
        return try await base.lookupRecords(in: scope, zoneID: zoneID, recordNames: recordNames, desiredKeys: desiredKeys)
    }
    func fetchDatabaseChanges(in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?) async throws -> DatabaseChangesBatch {
        let batch = try await base.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit)
        note("changes/database \(scope.rawValue) \(token == nil ? "from nil" : "from token") -> \(batch.changes.count) changes")
        return batch
    }
    func fetchRecordZoneChanges(in scope: DatabaseScope, _ requests: [ZoneChangesRequest]) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        let results = try await base.fetchRecordZoneChanges(in: scope, requests)
        let counts = results.map { (try? $0.get().changes.count).map(String.init) ?? "error" }
        note("changes/zone \(requests.map(\.zoneID.zoneName).joined(separator: ",")) -> \(counts.joined(separator: ","))")
        return results
    }
    func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws {
        note("zones/share")
        try await base.shareZone(zoneID, with: participants)
    }
    func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws {
        note("zones/share revoke")
        try await base.revokeShare(zoneID, from: participants)
    }
    func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws {
        note("purgeZone")
        try await base.purgeRecordZone(in: scope, zoneID)
    }
    func encryptedDataReset() async throws {
        note("encryptedDataReset")
        try await base.encryptedDataReset()
    }
    func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        note("compact")
        try await base.compactHistory(in: scope, zoneID: zoneID, keepLast: keepLast)
    }
    func modifySubscriptions(in scope: DatabaseScope, saving: [Subscription], deleting: [String]) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        note("subscriptions/modify")
        return try await base.modifySubscriptions(in: scope, saving: saving, deleting: deleting)
    }
    func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        note("subscriptions/list")
        return try await base.fetchSubscriptions(in: scope, ids: ids)
    }
    func registerForPushNotifications() async throws {
        note("tokens/register")
        try await base.registerForPushNotifications()
    }
    func receivePushNotifications() async throws -> [CloudNotification] {
        note("webcourier")
        return try await base.receivePushNotifications()
    }
}

final class CallLog: Sendable {
    private let calls = Mutex<[String]>([])
    func append(_ call: String) { calls.withLock { $0.append(call) } }
    var all: [String] { calls.withLock { $0 } }
}

@Suite struct ConnectionWrapperTests {
    func world(log: CallLog) throws -> Simulation {
        try Simulation(setup: SimulationSetup(
            users: ["alice"], devices: [.init(name: "iPhone", user: "alice"), .init(name: "Mac", user: "alice")],
            connectionWrapper: { service, name in RecordingConnection(base: service, deviceName: name, log: log) }))
    }

    @Test func thePushTriggeredFetchOfADeviceGoesThroughItsWrappedConnection() async throws {
        let log = CallLog()
        let simulation = try world(log: log)
        let iPhone = try #require(simulation.device(named: "iPhone"))
        let mac = try #require(simulation.device(named: "Mac"))
        await simulation.subscribe(.database(DatabaseSubscription(subscriptionID: "private-changes")), in: .private, on: mac)
        await simulation.createZone("Notes", on: iPhone)
        await simulation.advance(by: 2_000)
        let before = log.all.count
        await simulation.save(
            Record(recordID: RecordID(recordName: "n1", zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice")), recordType: "Note"),
            on: iPhone)
        await simulation.advance(by: 2_000)
        let calls = Array(log.all.dropFirst(before))
        #expect(calls.first == "iPhone: records/modify")
        #expect(calls.contains("Mac: changes/zone Notes -> 1"), "the Mac's engine fetched the new record through its wrapper: \(calls)")
        #expect(!calls.contains { $0.hasPrefix("iPhone: changes/") }, "the iPhone made the change and was not pushed: \(calls)")
        #expect(mac.connection is RecordingConnection)
    }

    @Test func simulationActionsThatSkipTheEngineUseTheWrappedConnectionToo() async throws {
        let log = CallLog()
        let simulation = try world(log: log)
        let iPhone = try #require(simulation.device(named: "iPhone"))
        await simulation.createZone("Notes", on: iPhone)
        await simulation.purgeZone(RecordZoneID(zoneName: "Notes", ownerName: "alice"), on: iPhone)
        await simulation.compact(on: iPhone)
        #expect(log.all.filter { $0.hasPrefix("iPhone: ") } == ["iPhone: zones/modify", "iPhone: purgeZone", "iPhone: compact"])
    }
}
