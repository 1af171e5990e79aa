import Foundation
import SyncCore
import Synchronization
import Testing

@testable import SyncScopeCloudKit

/// CKSyncEngine's events, in the order CloudKit documents them, and its documented behaviour:
/// retries, automatic sync, account changes, cancellation.
@Suite struct CKSyncEngineTests {
    /// A delegate that records events and sends whatever is pending with fixed records.
    final class Recorder: CKSyncEngineDelegate, @unchecked Sendable {
        private let log = Mutex<[String]>([])
        private let latestState = Mutex<CKSyncEngine.State.Serialization?>(nil)
        private let fetched = Mutex<[String]>([])
        var events: [String] { log.withLock { $0 } }
        var fetchedNames: [String] { fetched.withLock { $0 } }
        var state: CKSyncEngine.State.Serialization? { latestState.withLock { $0 } }

        func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
            log.withLock { $0.append(event.description) }
            switch event {
            case .stateUpdate(let update): latestState.withLock { $0 = update.stateSerialization }
            case .fetchedRecordZoneChanges(let changes):
                fetched.withLock { $0 += changes.modifications.map(\.record.recordID.recordName) }
            default: break
            }
        }

        func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
            let pending = syncEngine.state.pendingRecordZoneChanges.filter { context.options.scope.contains($0) }
            return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { id in
                let record = CKRecord(recordType: "Note", recordID: id)
                record["text"] = id.recordName
                return record
            }
        }

        func clear() { log.withLock { $0 = [] } }
    }

    static let zone = CKRecordZone(zoneName: "Notes")

    static func container(_ name: String = #function) -> (CKContainer, SyncScopeBackEnd) {
        let identifier = "iCloud.test.engine.\(name).\(UUID().uuidString)"
        let backEnd = SyncScopeBackEnd.inProcess(seed: 3)
        SyncScopeBackEnd.install(backEnd, forContainer: identifier)
        return (CKContainer(identifier: identifier), backEnd)
    }

    static func engine(_ container: CKContainer, _ delegate: Recorder, automatically: Bool = false, state: CKSyncEngine.State.Serialization? = nil) -> CKSyncEngine {
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: state, delegate: delegate)
        configuration.automaticallySync = automatically
        return CKSyncEngine(configuration)
    }

    static func note(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: zone.zoneID) }

    @Test func sendAndFetchEventsComeInCloudKitsOrder() async throws {
        let (container, _) = Self.container()
        let sender = Recorder()
        let engine = Self.engine(container, sender)
        engine.state.add(pendingDatabaseChanges: [.saveZone(Self.zone)])
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(Self.note("a")), .saveRecord(Self.note("b"))])
        try await engine.sendChanges()
        #expect(sender.events == [
            "accountChange(signIn(currentUser: <CKRecordID: _syncscope_user:(_defaultZone:__defaultOwner__)>))",
            "stateUpdate", "willSendChanges",
            "sentDatabaseChanges(1 saved, 0 deleted, 0 failed)", "stateUpdate",
            "sentRecordZoneChanges(2 saved, 0 deleted, 0 failed)", "stateUpdate",
            "didSendChanges",
        ])
        #expect(engine.state.pendingRecordZoneChanges.isEmpty && engine.state.pendingDatabaseChanges.isEmpty)

        let receiver = Recorder()
        let other = Self.engine(CKContainer(identifier: container.containerIdentifier!), receiver)
        try await other.fetchChanges()
        #expect(receiver.events == [
            "accountChange(signIn(currentUser: <CKRecordID: _syncscope_user:(_defaultZone:__defaultOwner__)>))", "stateUpdate",
            "willFetchChanges", "fetchedDatabaseChanges(1 modified, 0 deleted)", "stateUpdate",
            "willFetchRecordZoneChanges(Notes)", "fetchedRecordZoneChanges(2 modified, 0 deleted)", "stateUpdate",
            "didFetchRecordZoneChanges(Notes)", "didFetchChanges",
        ])
        #expect(Set(receiver.fetchedNames) == ["a", "b"])
        #expect(other.state.zoneIDsWithUnfetchedServerChanges.isEmpty)

        // Nothing new: no fetched events, and the state serialization survives Codable.
        receiver.clear()
        try await other.fetchChanges()
        #expect(!receiver.events.contains { $0.hasPrefix("fetched") })
        let serialization = try #require(receiver.state)
        let decoded = try JSONDecoder().decode(CKSyncEngine.State.Serialization.self, from: JSONEncoder().encode(serialization))
        #expect(decoded == serialization)
        let relaunched = Recorder()
        try await Self.engine(CKContainer(identifier: container.containerIdentifier!), relaunched, state: decoded).fetchChanges()
        #expect(!relaunched.events.contains { $0.hasPrefix("fetched") || $0.hasPrefix("accountChange") })
    }

    @Test func throttlingIsRetriedAfterTheServersDelay() async throws {
        let (container, backEnd) = Self.container()
        let recorder = Recorder()
        let engine = Self.engine(container, recorder)
        engine.state.add(pendingDatabaseChanges: [.saveZone(Self.zone)])
        try await engine.sendChanges()
        backEnd.addFaults(FaultPlan([FaultRule(.throttled(retryAfter: 30), match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 2))]))
        let before = backEnd.simulatedServer!.clock.now()
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(Self.note("a"))])
        try await engine.sendChanges()
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(backEnd.simulatedServer!.clock.now() - before >= 60_000)
        #expect(backEnd.simulatedServer!.injectedFaultCounts[.throttled] == 2)
    }

    @Test func retryableItemFailuresStayPendingUntilSent() async throws {
        let (container, backEnd) = Self.container()
        let recorder = Recorder()
        let engine = Self.engine(container, recorder)
        engine.state.add(pendingDatabaseChanges: [.saveZone(Self.zone)])
        try await engine.sendChanges()
        backEnd.addFaults(FaultPlan([FaultRule(.itemFailures(code: .zoneBusy, retryAfter: 2), match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 1))]))
        engine.state.add(pendingRecordZoneChanges: (0..<6).map { .saveRecord(Self.note("n\($0)")) })
        try await engine.sendChanges()
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(recorder.events.contains { $0.hasPrefix("sentRecordZoneChanges") && !$0.hasSuffix("0 failed)") })
        let stored = try await container.privateCloudDatabase.records(for: (0..<6).map { Self.note("n\($0)") })
        #expect(stored.values.allSatisfy { (try? $0.get()) != nil })
    }

    @Test func automaticSyncSendsPendingChangesAndFetchesOnPush() async throws {
        let (container, _) = Self.container()
        let phoneDelegate = Recorder()
        let laptopDelegate = Recorder()
        let phone = Self.engine(container, phoneDelegate, automatically: true)
        let laptop = Self.engine(CKContainer(identifier: container.containerIdentifier!), laptopDelegate, automatically: true)
        await phone.waitUntilIdle()
        await laptop.waitUntilIdle()

        phone.state.add(pendingDatabaseChanges: [.saveZone(Self.zone)])
        phone.state.add(pendingRecordZoneChanges: [.saveRecord(Self.note("pushed"))])
        let deadline = ContinuousClock.now + .seconds(20)
        while !laptopDelegate.fetchedNames.contains("pushed"), ContinuousClock.now < deadline {
            await phone.waitUntilIdle()
            await laptop.waitUntilIdle()
            await Task.yield()
        }
        #expect(phone.state.pendingRecordZoneChanges.isEmpty)
        #expect(laptopDelegate.fetchedNames.contains("pushed"))
        #expect(laptopDelegate.events.contains("willFetchChanges"))
    }

    @Test func accountChangesAreReportedAndResetTheState() async throws {
        let (container, _) = Self.container()
        let recorder = Recorder()
        let engine = Self.engine(container, recorder)
        engine.state.add(pendingDatabaseChanges: [.saveZone(Self.zone)])
        try await engine.sendChanges()
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(Self.note("left behind"))])

        container.signIn("_someone_else")
        recorder.clear()
        try await engine.fetchChanges()
        #expect(recorder.events.first == "accountChange(switchAccounts(previousUser: <CKRecordID: _syncscope_user:(_defaultZone:__defaultOwner__)>, currentUser: <CKRecordID: _someone_else:(_defaultZone:__defaultOwner__)>))")
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)

        container.signIn(nil)
        recorder.clear()
        do {
            try await engine.fetchChanges()
            Issue.record("a signed-out engine fetched")
        } catch CKError.notAuthenticated {}
        #expect(recorder.events.first?.hasPrefix("accountChange(signOut") == true)
    }

    @Test func cancelledOperationsThrowOperationCancelled() async throws {
        let (container, _) = Self.container()
        let engine = Self.engine(container, Recorder())
        let blocked = Task { try await engine.fetchChanges() }
        blocked.cancel()
        await engine.cancelOperations()
        do {
            try await blocked.value
        } catch let error as CKError {
            #expect(error.code == .operationCancelled)
        } catch is CancellationError {
        }
        // The engine still works afterwards.
        try await engine.fetchChanges()
    }
}
