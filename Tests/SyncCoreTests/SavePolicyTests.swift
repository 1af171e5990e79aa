import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing
import SyncSQLiteStore

/// Per-change save policies: queued with the save, kept by both stores
/// (across a restart), and used when the change is sent.
@Suite struct SavePolicyTests {
    let fixture = Fixture()
    let directory: TemporaryDirectory
    let other: InProcessCloudService
    let zone = Fixture.zone("A")

    init() throws {
        directory = try TemporaryDirectory()
        other = try fixture.connect(device: "laptop")
    }

    private func device(kind: StoreKind) throws -> TestDevice {
        try TestDevice(service: fixture.connect(device: "phone"), clock: fixture.clock, kind: kind, directory: directory)
    }

    /// The phone has note n (title A, done false) in its cache; the laptop then renames it to B on the server.
    private func phoneWithStaleNote(kind: StoreKind) async throws -> TestDevice {
        try await other.createZones([zone])
        try await other.put([Fixture.note("n", in: zone, ["title": "A", "done": .int64(0)])])
        let phone = try device(kind: kind)
        try await phone.engine.fetchChanges()
        try await other.put([Fixture.note("n", in: zone, ["title": "B", "done": .int64(0)])])
        return phone
    }

    private func doneOnly(_ phone: TestDevice) throws -> Record {
        var record = try #require(try phone.engine.record(Fixture.id("n", in: zone)))
        record["done"] = .int64(1)
        return record
    }

    @Test(arguments: StoreKind.allCases)
    func bothStoresKeepEachPendingSavesPolicyAndDefaultToIfServerRecordUnchanged(kind: StoreKind) throws {
        let store = try kind.make(directory)
        var batch = StoreBatch(scope: .private)
        batch.pendingUpserts = [
            .saveRecord(Fixture.id("a", in: zone), recordType: "Note", changedKeys: ["title"], scope: .private, savePolicy: .allKeys),
            .saveRecord(Fixture.id("b", in: zone), recordType: "Note", changedKeys: ["done"], scope: .private, savePolicy: .changedKeys),
            .saveRecord(Fixture.id("c", in: zone), recordType: "Note", changedKeys: ["title"], scope: .private),
        ]
        try store.apply(batch)
        #expect(try store.pendingChanges().map(\.savePolicy) == [.allKeys, .changedKeys, .ifServerRecordUnchanged])
    }

    @Test func theSQLiteStoreKeepsSavePoliciesAcrossAReopen() throws {
        let path = directory.path("reopen.sqlite")
        do {
            let store = try SQLiteLocalStore(path: path)
            var batch = StoreBatch(scope: .private)
            batch.pendingUpserts = [
                .saveRecord(Fixture.id("a", in: zone), recordType: "Note", changedKeys: ["title"], scope: .private, savePolicy: .allKeys),
            ]
            try store.apply(batch)
            try store.close()
        }
        let reopened = try SQLiteLocalStore(path: path)
        #expect(try reopened.pendingChanges().map(\.savePolicy) == [.allKeys])
    }

    @Test func onlySavesCarryAPolicy() {
        let deletion = PendingChange(
            scope: .private, kind: .deleteRecord, zoneID: zone, recordName: "n", recordType: "Note", savePolicy: .allKeys)
        #expect(deletion.savePolicy == .ifServerRecordUnchanged)
    }

    @Test(arguments: StoreKind.allCases)
    func theDefaultPolicyStillConflictsAndMergesTheChangedFields(kind: StoreKind) async throws {
        let phone = try await phoneWithStaleNote(kind: kind)
        try phone.engine.save(try doneOnly(phone))
        #expect(try phone.engine.pendingChanges().map(\.savePolicy) == [.ifServerRecordUnchanged])
        try await phone.engine.sendChanges()
        #expect(phone.events.events.contains { if case .conflictMerged = $0 { true } else { false } })
        #expect(try await other.serverRecords(in: zone).first?.fields == ["title": "B", "done": .int64(1)])
    }

    @Test(arguments: StoreKind.allCases)
    func allKeysOverwritesTheServersNewerRecordWithoutAConflict(kind: StoreKind) async throws {
        let phone = try await phoneWithStaleNote(kind: kind)
        try phone.engine.save(try doneOnly(phone), savePolicy: .allKeys)
        try phone.restart()  // the policy comes from the store, not from memory
        try await phone.engine.sendChanges()
        #expect(!phone.events.events.contains { if case .conflictMerged = $0 { true } else { false } })
        #expect(try await other.serverRecords(in: zone).first?.fields == ["title": "A", "done": .int64(1)])
        #expect(try phone.cached(zone).first?.fields == ["title": "A", "done": .int64(1)])
        #expect(try phone.engine.pendingChanges().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func changedKeysWritesOnlyTheChangedFieldsOverTheServersRecord(kind: StoreKind) async throws {
        let phone = try await phoneWithStaleNote(kind: kind)
        try phone.engine.save(try doneOnly(phone), savePolicy: .changedKeys)
        try await phone.engine.sendChanges()
        #expect(!phone.events.events.contains { if case .conflictMerged = $0 { true } else { false } })
        // The laptop's rename survives: the stale title was not sent.
        #expect(try await other.serverRecords(in: zone).first?.fields == ["title": "B", "done": .int64(1)])
        #expect(try phone.cached(zone).first?.fields == ["title": "B", "done": .int64(1)])
    }

    @Test func theNewestSaveOfARecordDecidesItsPolicy() async throws {
        let phone = try await phoneWithStaleNote(kind: .memory)
        let record = try doneOnly(phone)
        try phone.engine.save(record, savePolicy: .allKeys)
        // Saving the same fields again with the default policy takes the policy back.
        try phone.engine.save(record)
        #expect(try phone.engine.pendingChanges().map(\.savePolicy) == [.ifServerRecordUnchanged])
        try phone.engine.save(record, savePolicy: .changedKeys)
        #expect(try phone.engine.pendingChanges().map(\.savePolicy) == [.changedKeys])
        #expect(try phone.engine.pendingChanges().map(\.changedKeys) == [["done"]])
    }
}
