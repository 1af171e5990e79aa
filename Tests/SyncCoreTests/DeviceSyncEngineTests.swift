import Foundation
import SyncCore
import SyncClient
import SyncServer
import Synchronization
import Testing
import SyncSQLiteStore

/// One device: its connection, store, engine and event log.
final class TestDevice {
    let service: any CloudService
    private(set) var store: any LocalStore
    private(set) var engine: DeviceSyncEngine
    let events = EventLog()
    let clock: VirtualClock
    let configuration: DeviceSyncEngine.Configuration
    private let kind: StoreKind
    private let directory: TemporaryDirectory
    private let name: String

    init(
        service: any CloudService, clock: VirtualClock, kind: StoreKind = .memory, directory: TemporaryDirectory,
        configuration: DeviceSyncEngine.Configuration = .init()
    ) throws {
        self.service = service
        self.clock = clock
        self.kind = kind
        self.directory = directory
        self.configuration = configuration
        name = "\(service.userRecordName)-\(service.deviceID ?? "device")"
        store = try kind.make(directory, name: name)
        engine = DeviceSyncEngine(service: service, store: store, clock: clock, configuration: configuration, eventHandler: events.handler)
    }

    /// "Restarts the app": a new engine; for SQLite also a newly opened store on the same file.
    func restart() throws {
        if let observed = store as? ObservedStore { store = observed.base }
        if let sqlite = store as? SQLiteLocalStore {
            try sqlite.close()
            store = try kind.make(directory, name: name)
        }
        engine = DeviceSyncEngine(service: service, store: store, clock: clock, configuration: configuration, eventHandler: events.handler)
    }

    /// Runs the engine on `store` (a wrapper of this device's store).
    func use(_ store: any LocalStore) {
        self.store = store
        engine = DeviceSyncEngine(service: service, store: store, clock: clock, configuration: configuration, eventHandler: events.handler)
    }

    func cached(_ zone: RecordZoneID, scope: DatabaseScope = .private) throws -> [Record] {
        try store.records(in: scope, zoneID: zone)
    }
}

@Suite struct DeviceSyncEngineTests {
    let fixture = Fixture()
    let directory: TemporaryDirectory
    let other: InProcessCloudService
    let a = Fixture.zone("A")
    let b = Fixture.zone("B")

    init() throws {
        directory = try TemporaryDirectory()
        other = try fixture.connect(device: "laptop")
    }

    private func device(_ name: String = "phone", user: String = "alice", kind: StoreKind = .memory, resultsLimit: Int? = nil) throws -> TestDevice {
        try TestDevice(
            service: fixture.connect(user, device: name), clock: fixture.clock, kind: kind, directory: directory,
            configuration: .init(resultsLimit: resultsLimit))
    }

    private func names(_ records: [Record]) -> [String] { records.map(\.recordID.recordName) }

    // MARK: Fetching

    @Test(arguments: StoreKind.allCases)
    func fetchChangesFillsCacheThenAppliesOnlyNewChanges(kind: StoreKind) async throws {
        try await other.createZones([a, b])
        try await other.put((1...3).map { Fixture.note("a\($0)", in: a) })
        try await other.put([Fixture.note("b1", in: b)])
        let phone = try device(kind: kind)
        try await phone.engine.fetchChanges()
        #expect(try await phone.cached(a) == other.serverRecords(in: a))
        #expect(try await phone.cached(b) == other.serverRecords(in: b))

        try await other.put([Fixture.note("a1", in: a, ["title": "new"])])
        try await other.remove([Fixture.id("a2", in: a)])
        phone.events.events.removeAll()
        try await phone.engine.fetchChanges()
        #expect(try await phone.cached(a) == other.serverRecords(in: a))
        #expect(names(try phone.cached(a)) == ["a1", "a3"])
        let zoneReceipts = phone.events.tokenReceipts.filter { $0.kind == .recordZone }
        #expect(zoneReceipts.map(\.zoneID) == [a])  // B did not change: not fetched
        #expect(zoneReceipts.map(\.changeCount) == [2])
    }

    @Test(arguments: StoreKind.allCases)
    func interruptedFetchResumesFromLastBatchToken(kind: StoreKind) async throws {
        try await other.createZones([a])
        try await other.put((1...10).map { Fixture.note(String(format: "r%02d", $0), in: a) })
        let phone = try device(kind: kind, resultsLimit: 3)
        // 1 database batch + 2 zone batches, then the "app is killed".
        await #expect(throws: SyncClientError.interrupted(afterBatches: 3)) { try await phone.engine.fetchChanges(stopAfterBatches: 3) }
        #expect(names(try phone.cached(a)) == ["r01", "r02", "r03", "r04", "r05", "r06"])
        let lastReceipt = try #require(phone.events.tokenReceipts.last)
        #expect(lastReceipt.moreComing)
        #expect(try phone.store.zoneToken(for: a, in: .private) == lastReceipt.token)

        try phone.restart()
        phone.events.events.removeAll()
        try await phone.engine.fetchChanges()
        #expect(try await phone.cached(a) == other.serverRecords(in: a))
        // Only the rest was downloaded: nothing before the cached token came again.
        let applied = phone.events.events.compactMap { event -> Int? in
            if case .recordsApplied(_, _, let saved, _, _) = event { saved } else { nil }
        }
        #expect(applied == [3, 1])
    }

    @Test(arguments: StoreKind.allCases)
    func zoneReportedBeforeCrashIsStillFetchedAfterRestart(kind: StoreKind) async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a)])
        let phone = try device(kind: kind)
        // Only the database batch: its token is cached, the zone not fetched yet.
        await #expect(throws: SyncClientError.interrupted(afterBatches: 1)) { try await phone.engine.fetchChanges(stopAfterBatches: 1) }
        #expect(try phone.store.databaseToken(for: .private) != nil)
        #expect(try phone.cached(a).isEmpty)
        try phone.restart()
        try await phone.engine.fetchChanges()
        // The database has nothing new since its token, but the zone was remembered.
        #expect(names(try phone.cached(a)) == ["r1"])
    }

    @Test(arguments: StoreKind.allCases)
    func storeFailureMidFetchNeverLeavesTokenAheadOfData(kind: StoreKind) async throws {
        try await other.createZones([a])
        try await other.put((1...9).map { Fixture.note("r\($0)", in: a) })
        let phone = try device(kind: kind, resultsLimit: 3)
        // The database batch and the first zone batch succeed; the second zone batch fails mid-transaction.
        let observed = ObservedStore(phone.store)
        var zoneBatches = 0
        observed.beforeApply = { batch in
            guard !batch.zoneTokens.isEmpty else { return }
            zoneBatches += 1
            if zoneBatches == 2 { observed.base.faultInjector = { if $0 == .beforeTokens { throw InjectedFault() } } }
        }
        phone.use(observed)
        await #expect(throws: InjectedFault.self) { try await phone.engine.fetchChanges() }
        #expect(names(try phone.cached(a)) == ["r1", "r2", "r3"])
        let lastReceipt = try #require(phone.events.tokenReceipts.last)
        #expect(lastReceipt.zoneID == a && lastReceipt.batchIndex == 0)
        #expect(try phone.store.zoneToken(for: a, in: .private) == lastReceipt.token)

        observed.base.faultInjector = nil
        try phone.restart()
        try await phone.engine.fetchChanges()
        #expect(try await phone.cached(a) == other.serverRecords(in: a))
    }

    @Test func deletedZoneDropsLocalDataAndToken() async throws {
        try await other.createZones([a, b])
        try await other.put([Fixture.note("a1", in: a), Fixture.note("a2", in: a)])
        try await other.put([Fixture.note("b1", in: b)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try await other.deleteZones([a])
        try await phone.engine.fetchChanges()
        #expect(try phone.cached(a).isEmpty)
        #expect(try phone.store.zoneToken(for: a, in: .private) == nil)
        #expect(try phone.store.knownZones(in: .private).map(\.zoneID) == [b])
        #expect(names(try phone.cached(b)) == ["b1"])
        #expect(phone.events.events.contains(.zoneDeleted(scope: .private, zoneID: a, reason: .deleted, recordsRemoved: 2, pendingChangesDropped: 0)))
    }

    @Test func purgedZoneIsWipedAndNotReuploaded() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("a1", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        var edit = try #require(try phone.cached(a).first)
        edit["title"] = "local edit"
        try phone.engine.save(edit)
        try await other.purgeRecordZone(in: .private, a)

        try await phone.engine.fetchChanges()
        #expect(try phone.cached(a).isEmpty)
        #expect(try phone.store.pendingChanges().isEmpty)
        #expect(try phone.store.purgedZones(in: .private) == [a])
        #expect(phone.events.events.contains(.zonePurged(scope: .private, zoneID: a, recordsRemoved: 1, pendingChangesDropped: 1)))
        #expect(throws: CloudError.self) { try phone.engine.save(Fixture.note("a2", in: a)) }
        try await phone.engine.sendChanges()
        #expect(try await other.serverZoneIDs().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func encryptedDataResetDropsTokensAndReuploadsLocalData(kind: StoreKind) async throws {
        try await other.createZones([a])
        try await other.put((1...3).map { Fixture.note("r\($0)", in: a, ["title": .string("v\($0)")]) })
        let phone = try device(kind: kind)
        try await phone.engine.fetchChanges()
        try await other.encryptedDataReset()

        try await phone.engine.fetchChanges()
        #expect(phone.events.events.contains(.zoneEncryptedDataReset(scope: .private, zoneID: a, recordsQueuedForUpload: 3)))
        #expect(try phone.store.zoneToken(for: a, in: .private) == nil)
        #expect(try phone.cached(a).allSatisfy { $0.recordChangeTag == nil })
        #expect(try phone.store.pendingChanges().map(\.kind) == [.saveRecord, .saveRecord, .saveRecord, .saveZone])

        try await phone.engine.sendChanges()
        let server = try await other.serverRecords(in: a)
        #expect(server.map(\.fields) == [["title": "v1"], ["title": "v2"], ["title": "v3"]])
        #expect(try phone.cached(a) == server)
        try await phone.engine.fetchChanges()
        #expect(try phone.cached(a) == server)
    }

    @Test func expiredZoneTokenRefetchesAndRemovesVanishedRecords() async throws {
        try await other.createZones([a])
        try await other.put((1...4).map { Fixture.note("r\($0)", in: a) })
        let phone = try device()
        try await phone.engine.fetchChanges()
        try phone.engine.save(Fixture.note("local", in: a))  // not sent: must survive the refetch
        try await other.remove([Fixture.id("r2", in: a), Fixture.id("r3", in: a)])
        try await other.compactHistory(in: .private, zoneID: a, keepLast: 0)

        try await phone.engine.fetchChanges()
        #expect(phone.events.events.contains(.tokenExpired(kind: .recordZone, scope: .private, zoneID: a)))
        #expect(phone.events.events.contains(.vanishedRecordsRemoved(scope: .private, zoneID: a, recordIDs: [Fixture.id("r2", in: a), Fixture.id("r3", in: a)])))
        #expect(names(try phone.cached(a)) == ["local", "r1", "r4"])
        #expect(try phone.store.pendingChanges().map(\.recordName) == ["local"])
        try await phone.engine.sendChanges()
        try await phone.engine.fetchChanges()
        #expect(try await phone.cached(a) == other.serverRecords(in: a))
    }

    @Test func expiredDatabaseTokenRefetchesFromNilAndDropsZonesNoLongerListed() async throws {
        try await other.createZones([a, b])
        try await other.put([Fixture.note("a1", in: a)])
        try await other.put([Fixture.note("b1", in: b)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try await other.deleteZones([b])
        try await other.put([Fixture.note("a2", in: a)])
        try await other.compactHistory(in: .private, zoneID: nil, keepLast: 0)

        try await phone.engine.fetchChanges()
        #expect(phone.events.events.contains(.tokenExpired(kind: .database, scope: .private, zoneID: nil)))
        #expect(phone.events.events.contains(.zoneDeleted(scope: .private, zoneID: b, reason: .missingFromRefetch, recordsRemoved: 1, pendingChangesDropped: 0)))
        #expect(try phone.store.knownZones(in: .private).map(\.zoneID) == [a])
        #expect(try phone.cached(b).isEmpty)
        #expect(try await phone.cached(a) == other.serverRecords(in: a))
    }

    @Test func zoneNotFoundDuringZoneFetchDropsZoneLocally() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("a1", in: a)])
        let armed = Mutex(false)
        let laptop = other
        let zone = a
        let hooked = HookedService(base: try fixture.connect(device: "phone")) {
            // Between the database fetch and the zone fetch, another device deletes the zone.
            if armed.withLock({ let was = $0; $0 = false; return was }) { try await laptop.deleteZones([zone]) }
        }
        let phone = try TestDevice(service: hooked, clock: fixture.clock, directory: directory)
        try await phone.engine.fetchChanges()
        try await other.put([Fixture.note("a2", in: a)])
        armed.withLock { $0 = true }
        try await phone.engine.fetchChanges()
        #expect(phone.events.events.contains(.zoneDeleted(scope: .private, zoneID: a, reason: .zoneNotFound, recordsRemoved: 1, pendingChangesDropped: 0)))
        #expect(try phone.cached(a).isEmpty)
        #expect(try phone.store.knownZones(in: .private).isEmpty)
    }

    @Test func userDeletedZoneDuringZoneFetchWipesAndRemembersPurge() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("a1", in: a)])
        let armed = Mutex(false)
        let laptop = other
        let zone = a
        let hooked = HookedService(base: try fixture.connect(device: "phone")) {
            if armed.withLock({ let was = $0; $0 = false; return was }) { try await laptop.purgeRecordZone(in: .private, zone) }
        }
        let phone = try TestDevice(service: hooked, clock: fixture.clock, directory: directory)
        try await phone.engine.fetchChanges()
        try await other.put([Fixture.note("a2", in: a)])
        armed.withLock { $0 = true }
        try await phone.engine.fetchChanges()
        #expect(phone.events.events.contains(.zonePurged(scope: .private, zoneID: a, recordsRemoved: 1, pendingChangesDropped: 0)))
        #expect(try phone.store.purgedZones(in: .private) == [a])
        #expect(try phone.cached(a).isEmpty)
    }

    @Test func tokenReceiptEventsCarryKindScopeOperationBatchIndexAndTime() async throws {
        try await other.createZones([a])
        try await other.put((1...3).map { Fixture.note("r\($0)", in: a) })
        let phone = try device(resultsLimit: 2)
        fixture.clock.advance(by: 5_000)
        try await phone.engine.fetchChanges()
        let now = fixture.clock.now()
        let receipts = phone.events.tokenReceipts.filter { $0.scope == .private }
        #expect(phone.events.tokenReceipts.filter { $0.scope == .shared }.map(\.kind) == [.database])
        #expect(receipts.count == 3)
        #expect(receipts.map(\.kind) == [.database, .recordZone, .recordZone])
        #expect(receipts.map(\.operation) == ["changes/database", "changes/zone", "changes/zone"])
        #expect(receipts.map(\.zoneID) == [nil, a, a])
        #expect(receipts.map(\.batchIndex) == [0, 0, 1])
        #expect(receipts.map(\.moreComing) == [false, true, false])
        #expect(receipts.map(\.changeCount) == [1, 2, 1])
        #expect(receipts.allSatisfy { $0.scope == .private && $0.time == now && $0.deviceID == "phone" })
        #expect(receipts[0].token == (try phone.store.databaseToken(for: .private)))
        #expect(receipts[2].token == (try phone.store.zoneToken(for: a, in: .private)))
    }

    // MARK: Sending

    @Test(arguments: StoreKind.allCases)
    func sendChangesUpdatesCachedTagAndLeavesTokensAlone(kind: StoreKind) async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a, ["title": "old"])])
        let phone = try device(kind: kind)
        try await phone.engine.fetchChanges()
        let tokensBefore = try phone.store.tokenCache()
        var edit = try #require(try phone.cached(a).first)
        let oldTag = edit.recordChangeTag
        edit["title"] = "new"
        try phone.engine.save(edit)
        #expect(try phone.store.pendingChanges() == [.saveRecord(edit.recordID, recordType: "Note", changedKeys: ["title"], scope: .private)])

        try await phone.engine.sendChanges()
        let server = try await other.serverRecords(in: a)
        #expect(server.first?["title"] == "new")
        #expect(try phone.cached(a) == server)
        #expect(try phone.cached(a).first?.recordChangeTag != oldTag)
        #expect(try phone.store.pendingChanges().isEmpty)
        #expect(try phone.store.tokenCache() == tokensBefore)
        #expect(phone.events.events.contains(.changesSent(scope: .private, zoneID: a, saved: [edit.recordID], deleted: [])))
    }

    @Test func newZoneIsCreatedBeforeItsRecordsAreSent() async throws {
        let phone = try device()
        try phone.engine.save(Fixture.note("r1", in: a))
        try await phone.engine.sendChanges()
        #expect(try await other.serverZoneIDs() == [a])
        #expect(names(try await other.serverRecords(in: a)) == ["r1"])
        let order = phone.events.events.compactMap { event -> String? in
            switch event {
            case .zonesSent: "zones"
            case .changesSent: "records"
            default: nil
            }
        }
        #expect(order == ["zones", "records"])
    }

    @Test func conflictMergesLocalChangedFieldsIntoServerRecord() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a, ["title": "a", "body": "x"])])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try await other.put([Fixture.note("r1", in: a, ["title": "a", "body": "y"])])
        var edit = try #require(try phone.cached(a).first)
        edit["title"] = "b"
        try phone.engine.save(edit)

        try await phone.engine.sendChanges()
        let server = try #require(try await other.serverRecords(in: a).first)
        #expect(server.fields == ["title": "b", "body": "y"])
        #expect(try phone.cached(a) == [server])
        #expect(phone.events.events.contains { if case .conflictMerged(_, edit.recordID, _, ["title"]) = $0 { true } else { false } })
    }

    @Test func saveOfRecordDeletedOnServerIsDroppedWithEvent() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a), Fixture.note("r2", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try await other.remove([Fixture.id("r1", in: a)])
        var edit = try #require(try phone.engine.record(Fixture.id("r1", in: a)))
        edit["title"] = "too late"
        try phone.engine.save(edit)

        try await phone.engine.sendChanges()
        #expect(try phone.store.pendingChanges().isEmpty)
        #expect(names(try phone.cached(a)) == ["r2"])
        #expect(names(try await other.serverRecords(in: a)) == ["r2"])
        #expect(phone.events.events.contains { if case .pendingChangeDropped(let change, _) = $0 { change.recordName == "r1" } else { false } })
    }

    @Test func pendingLocalEditSurvivesFetchOfNewerServerRecord() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a, ["title": "a", "body": "x"])])
        let phone = try device()
        try await phone.engine.fetchChanges()
        var edit = try #require(try phone.cached(a).first)
        edit["title"] = "mine"
        try phone.engine.save(edit)
        let serverNow = try await other.put([Fixture.note("r1", in: a, ["title": "a", "body": "theirs"])])[0]

        try await phone.engine.fetchChanges()
        let cached = try #require(try phone.cached(a).first)
        #expect(cached.fields == ["title": "mine", "body": "theirs"])
        #expect(cached.recordChangeTag == serverNow.recordChangeTag)
        try await phone.engine.sendChanges()
        #expect(!phone.events.events.contains { if case .conflictMerged = $0 { true } else { false } })
        #expect(try await other.serverRecords(in: a).first?.fields == ["title": "mine", "body": "theirs"])
    }

    @Test func fetchedDeletionDropsPendingEditButKeepsNewLocalRecord() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        var edit = try #require(try phone.cached(a).first)
        edit["title"] = "edit"
        try phone.engine.save(edit)
        try phone.engine.save(Fixture.note("fresh", in: a))
        // Someone else creates and deletes a record named "fresh": its deletion must not eat our new one.
        try await other.put([Fixture.note("fresh", in: a)])
        try await other.remove([Fixture.id("fresh", in: a), Fixture.id("r1", in: a)])

        try await phone.engine.fetchChanges()
        #expect(names(try phone.cached(a)) == ["fresh"])
        #expect(try phone.store.pendingChanges().map(\.recordName) == ["fresh"])
    }

    @Test func deletingARecordNeverSentForgetsIt() async throws {
        let phone = try device()
        try phone.engine.save(Fixture.note("r1", in: a))
        try phone.engine.delete(Fixture.id("r1", in: a))
        #expect(try phone.store.pendingChanges().isEmpty)
        #expect(try phone.cached(a).isEmpty)
    }

    @Test func deletingAgainAfterResavingALocallyDeletedRecordStillDeletesIt() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("r1", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try phone.engine.delete(Fixture.id("r1", in: a))
        try phone.engine.save(Fixture.note("r1", in: a, ["title": "again"]))  // the server still has r1
        try phone.engine.delete(Fixture.id("r1", in: a))
        #expect(try phone.store.pendingChanges().map(\.kind) == [.deleteRecord])
        try await phone.engine.sendChanges()
        #expect(try await other.serverRecords(in: a).isEmpty)
    }

    @Test func deleteZoneRemovesLocalDataAndIsSent() async throws {
        try await other.createZones([a, b])
        try await other.put([Fixture.note("a1", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try phone.engine.deleteZone(a)
        #expect(try phone.cached(a).isEmpty)
        try await phone.engine.fetchChanges()  // the zone is not fetched back while its deletion is pending
        #expect(try phone.cached(a).isEmpty)
        try await phone.engine.sendChanges()
        #expect(try await other.serverZoneIDs() == [b])
        #expect(try phone.store.pendingChanges().isEmpty)
        #expect(try phone.store.knownZones(in: .private).map(\.zoneID) == [b])
    }

    @Test func sendAfterRemoteZoneDeletionDropsPendingChangesInsteadOfRecreating() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("a1", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try phone.engine.save(Fixture.note("a2", in: a))
        try await other.deleteZones([a])

        try await phone.engine.sendChanges()
        #expect(try await other.serverZoneIDs().isEmpty)
        #expect(try phone.store.pendingChanges().isEmpty)
        #expect(try phone.cached(a).isEmpty)
    }

    @Test func encryptedDataResetDoesNotRecreateAZoneThisDeviceDeleted() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("a1", in: a)])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try await other.encryptedDataReset()
        try phone.engine.deleteZone(a)
        try await phone.engine.sendChanges()
        try await phone.engine.fetchChanges()
        #expect(try phone.store.pendingChanges().isEmpty)
        try await phone.engine.sendChanges()
        #expect(try await other.serverZoneIDs().isEmpty)
    }

    @Test func recordsSentIntoAZoneGoWhenAFullRefetchNoLongerListsIt() async throws {
        let shared = Fixture.zone("Shared")
        try await other.createZones([shared])
        let bobAdmin = try fixture.connect("bob", device: "bob-admin")
        try await other.shareZone(shared, with: ["bob"])
        // Bob writes into the shared zone without ever fetching it.
        let bob = try device("bob-phone", user: "bob")
        try bob.engine.save(Fixture.note("s1", in: shared))
        try await bob.engine.sendChanges()
        #expect(try bob.store.knownZones(in: .shared).map(\.zoneID) == [shared])
        // The share ends and the shared database's history is compacted: a
        // first fetch lists only the zones shared now.
        try await other.revokeShare(shared, from: ["bob"])
        try await bobAdmin.compactHistory(in: .shared, zoneID: nil, keepLast: 0)
        try await bob.engine.fetchChanges()
        #expect(try bob.cached(shared, scope: .shared).isEmpty)
        #expect(try bob.store.knownZones(in: .shared).isEmpty)
    }

    @Test func encryptedDataResetFoundWhileSendingReuploads() async throws {
        try await other.createZones([a])
        try await other.put([Fixture.note("a1", in: a, ["title": "kept"])])
        let phone = try device()
        try await phone.engine.fetchChanges()
        try await other.encryptedDataReset()
        try phone.engine.save(Fixture.note("a2", in: a, ["title": "new"]))

        try await phone.engine.sendChanges()
        #expect(try phone.store.pendingChanges().isEmpty)
        let server = try await other.serverRecords(in: a)
        #expect(server.map(\.fields) == [["title": "kept"], ["title": "new"]])
        #expect(try phone.cached(a) == server)
    }

    @Test func sharedZoneSyncsBothWaysAndGoesWhenRevoked() async throws {
        let shared = Fixture.zone("Shared")
        try await other.createZones([shared])
        try await other.put([Fixture.note("s1", in: shared, ["title": "from alice"])])
        _ = try fixture.connect("bob", device: "bob-phone")
        try await other.shareZone(shared, with: ["bob"])
        let bob = try device("bob-phone", user: "bob")
        try await bob.engine.fetchChanges()
        #expect(names(try bob.cached(shared, scope: .shared)) == ["s1"])

        var edit = try #require(try bob.cached(shared, scope: .shared).first)
        edit["title"] = "from bob"
        try bob.engine.save(edit)
        try await bob.engine.sendChanges()
        let alice = try device()
        try await alice.engine.fetchChanges()
        #expect(try alice.cached(shared).first?["title"] == "from bob")
        #expect(try alice.cached(shared) == bob.cached(shared, scope: .shared))

        try await other.revokeShare(shared, from: ["bob"])
        try await bob.engine.fetchChanges()
        #expect(try bob.cached(shared, scope: .shared).isEmpty)
        #expect(bob.events.events.contains { if case .zoneDeleted(.shared, shared, .deleted, 1, 0) = $0 { true } else { false } })
    }
}
