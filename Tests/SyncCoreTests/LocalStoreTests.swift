import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing
import SyncSQLiteStore

@Suite struct LocalStoreTests {
    let zone = Fixture.zone("Notes")
    let other = Fixture.zone("Other")

    private func saved(_ name: String, tag: String, in zone: RecordZoneID? = nil, _ fields: RecordFields = ["title": "t"]) -> Record {
        var record = Fixture.note(name, in: zone ?? self.zone, fields)
        record.recordChangeTag = tag
        record.created = RecordStamp(timestamp: 1, userRecordName: "alice", deviceID: "phone")
        record.modified = RecordStamp(timestamp: 2, userRecordName: "alice", deviceID: nil)
        return record
    }

    private func seed(_ store: any LocalStore) throws {
        var batch = StoreBatch(scope: .private)
        batch.zonesNeedingFetch = [zone]
        batch.savedRecords = [saved("r1", tag: "1"), saved("r2", tag: "2")]
        batch.databaseToken = .set(ServerChangeToken(rawValue: "db-1"))
        batch.zoneTokens = [ZoneTokenChange(zoneID: zone, update: .set(ServerChangeToken(rawValue: "zone-1")))]
        try store.apply(batch)
    }

    @Test(arguments: StoreKind.allCases)
    func applyWritesRecordsDeletionsAndTokenTogether(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        try seed(store)
        var batch = StoreBatch(scope: .private)
        batch.deletedRecordIDs = [Fixture.id("r1", in: zone)]
        batch.savedRecords = [saved("r3", tag: "3")]
        batch.zoneTokens = [ZoneTokenChange(zoneID: zone, update: .set(ServerChangeToken(rawValue: "zone-2")))]
        try store.apply(batch)
        #expect(try store.records(in: .private, zoneID: zone).map(\.recordID.recordName) == ["r2", "r3"])
        #expect(try store.zoneToken(for: zone, in: .private) == ServerChangeToken(rawValue: "zone-2"))
        #expect(try store.databaseToken(for: .private) == ServerChangeToken(rawValue: "db-1"))
    }

    @Test(arguments: StoreKind.allCases, StoreFaultPoint.allCases)
    func faultMidTransactionLeavesRecordsAndTokenUnchanged(kind: StoreKind, point: StoreFaultPoint) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        try seed(store)
        let recordsBefore = try store.allRecords(in: .private)
        let tokensBefore = try store.tokenCache()
        let pendingBefore = try store.pendingChanges()
        store.faultInjector = { if $0 == point { throw InjectedFault() } }
        var batch = StoreBatch(scope: .private)
        batch.deletedRecordIDs = [Fixture.id("r1", in: zone)]
        batch.savedRecords = [saved("r2", tag: "9", ["title": "changed"]), saved("r3", tag: "3")]
        batch.zoneRemovals = [ZoneRemoval(zoneID: other)]
        batch.pendingUpserts = [.saveZone(other)]
        batch.databaseToken = .set(ServerChangeToken(rawValue: "db-2"))
        batch.zoneTokens = [ZoneTokenChange(zoneID: zone, update: .set(ServerChangeToken(rawValue: "zone-2")))]
        #expect(throws: InjectedFault.self) { try store.apply(batch) }
        #expect(try store.allRecords(in: .private) == recordsBefore)
        #expect(try store.tokenCache() == tokensBefore)
        #expect(try store.pendingChanges() == pendingBefore)
        // Without the fault the same batch goes through.
        store.faultInjector = nil
        try store.apply(batch)
        #expect(try store.zoneToken(for: zone, in: .private) == ServerChangeToken(rawValue: "zone-2"))
        #expect(try store.records(in: .private, zoneID: zone).map(\.recordChangeTag) == ["9", "3"])
    }

    /// Everything a store answers, to compare before and after a failed batch.
    private func snapshot(_ store: any LocalStore) throws -> [String] {
        var lines: [String] = []
        for scope in [DatabaseScope.private, .shared] {
            lines += try store.allRecords(in: scope).map { "record \($0)" }
            lines += try store.knownZones(in: scope).map { "zone \($0.zoneID) needsFetch=\($0.needsFetch) stale=\($0.isStale)" }
            lines += try store.purgedZones(in: scope).map { "purged \($0)" }
            for zoneID in [zone, other] {
                lines += try store.staleRecordIDs(in: scope, zoneID: zoneID).map { "stale \($0)" }
                lines.append("count \(zoneID) \(try store.recordCount(in: scope, zoneID: zoneID))")
            }
        }
        lines += try store.pendingChanges().map { "pending \($0)" }
        return lines
    }

    @Test(arguments: StoreKind.allCases, StoreFaultPoint.allCases)
    func aFailedBatchTouchingEveryPartLeavesTheStoreAsItWas(kind: StoreKind, point: StoreFaultPoint) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        try seed(store)
        var more = StoreBatch(scope: .private)
        more.zonesNeedingFetch = [other]
        more.savedRecords = [saved("o1", tag: "1", in: other), saved("o2", tag: "2", in: other)]
        more.pendingUpserts = [.saveRecord(Fixture.id("o1", in: other), recordType: "Note", changedKeys: ["title"], scope: .private), .saveZone(zone)]
        more.purgedZonesAdded = [other]
        try store.apply(more)
        // Read by offset first, so a store that indexes names has its index built.
        #expect(try store.record(atOffset: 1, in: .private, zoneID: zone)?.recordID.recordName == "r2")
        let before = try snapshot(store)
        let tokensBefore = try store.tokenCache()

        store.faultInjector = { if $0 == point { throw InjectedFault() } }
        var batch = StoreBatch(scope: .private)
        batch.beginDatabaseRefetch = true
        batch.beginZoneRefetch = [zone]
        batch.zoneRemovals = [ZoneRemoval(zoneID: other)]
        batch.zonesConfirmed = [zone]
        batch.zonesFetched = [zone]
        batch.deletedRecordIDs = [Fixture.id("r1", in: zone), Fixture.id("r2", in: zone)]
        batch.savedRecords = [saved("r0", tag: "5"), saved("new", tag: "6", in: Fixture.zone("Fresh"))]
        batch.pendingRemovals = [PendingChange.recordKey(Fixture.id("o1", in: other), scope: .private)]
        batch.pendingUpserts = [.deleteZone(zone), .saveZone(Fixture.zone("Fresh"))]
        batch.purgedZonesAdded = [zone]
        batch.purgedZonesRemoved = [other]
        batch.databaseToken = .set(ServerChangeToken(rawValue: "db-2"))
        batch.zoneTokens = [ZoneTokenChange(zoneID: zone, update: .remove)]
        #expect(throws: InjectedFault.self) { try store.apply(batch) }
        #expect(try snapshot(store) == before)
        #expect(try store.tokenCache() == tokensBefore)
        #expect(try store.record(atOffset: 0, in: .private, zoneID: zone)?.recordID.recordName == "r1")
        #expect(try store.record(atOffset: 1, in: .private, zoneID: zone)?.recordID.recordName == "r2")
        #expect(try store.record(atOffset: 2, in: .private, zoneID: zone) == nil)

        // A later change is queued after the ones already there, as if the failed batch never ran.
        store.faultInjector = nil
        var next = StoreBatch(scope: .private)
        next.pendingUpserts = [.saveZone(Fixture.zone("Later"))]
        try store.apply(next)
        #expect(try store.pendingChanges().map(\.description).last == "save zone Later@alice (private)")
        #expect(try store.pendingChanges().count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func recordsByOffsetFollowRecordNameOrderThroughSavesAndDeletions(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        var random = SystemRandomNumberGenerator()
        var expected: Set<String> = []
        // Enough names to split the in-memory index's chunks several times.
        for round in 0..<6 {
            var batch = StoreBatch(scope: .private)
            let added = (0..<400).map { _ in "n\(Int.random(in: 0..<3_000, using: &random))" }
            let removed = expected.shuffled(using: &random).prefix(round * 40)
            batch.deletedRecordIDs = removed.map { Fixture.id($0, in: zone) }
            batch.savedRecords = added.map { saved($0, tag: "\(round)") }
            try store.apply(batch)
            expected.subtract(removed)
            expected.formUnion(added)
            let names = try store.records(in: .private, zoneID: zone).map(\.recordID.recordName)
            #expect(names == expected.sorted())
            #expect(try store.recordCount(in: .private, zoneID: zone) == names.count)
            // Every offset in memory; a sample in SQLite, whose default answer lists the zone each time.
            let offsets = Array(stride(from: 0, to: names.count, by: kind == .memory ? 1 : 53)) + [names.count - 1]
            let byOffset = try offsets.map { try store.record(atOffset: $0, in: .private, zoneID: zone)?.recordID.recordName }
            #expect(byOffset == offsets.map { names[$0] })
            #expect(try store.record(atOffset: names.count, in: .private, zoneID: zone) == nil)
            #expect(try store.record(atOffset: -1, in: .private, zoneID: zone) == nil)
        }
        var removal = StoreBatch(scope: .private)
        removal.zoneRemovals = [ZoneRemoval(zoneID: zone)]
        try store.apply(removal)
        #expect(try store.recordCount(in: .private, zoneID: zone) == 0)
        #expect(try store.record(atOffset: 0, in: .private, zoneID: zone) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func databaseAndZoneTokensAreStoredApart(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        var batch = StoreBatch(scope: .private)
        batch.databaseToken = .set(ServerChangeToken(rawValue: "db"))
        try store.apply(batch)
        #expect(try store.zoneToken(for: zone, in: .private) == nil)
        #expect(try store.databaseToken(for: .shared) == nil)
        var zoneBatch = StoreBatch(scope: .shared)
        zoneBatch.zoneTokens = [ZoneTokenChange(zoneID: Fixture.zone("S", owner: "bob"), update: .set(ServerChangeToken(rawValue: "z")))]
        try store.apply(zoneBatch)
        let cache = try store.tokenCache()
        #expect(cache.databaseTokens == [.private: ServerChangeToken(rawValue: "db")])
        #expect(cache.zoneTokens.count == 1)
        #expect(try store.databaseToken(for: .shared) == nil)
        var remove = StoreBatch(scope: .private)
        remove.databaseToken = .remove
        try store.apply(remove)
        #expect(try store.tokenCache().databaseTokens.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func pendingQueueKeepsOrderAndReplacesSameKey(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        let r1 = Fixture.id("r1", in: zone), r2 = Fixture.id("r2", in: zone)
        var batch = StoreBatch(scope: .private)
        batch.pendingUpserts = [
            .saveRecord(r1, recordType: "Note", changedKeys: ["b", "a", "a"], scope: .private),
            .saveZone(zone),
            .saveRecord(r2, recordType: "Note", changedKeys: [], scope: .private),
        ]
        try store.apply(batch)
        var replace = StoreBatch(scope: .private)
        replace.pendingUpserts = [.deleteRecord(r1, recordType: "Note", scope: .private), .deleteZone(zone)]
        try store.apply(replace)
        let pending = try store.pendingChanges()
        #expect(pending.map(\.description) == [
            "save zone Notes@alice (private)", "save r2 in Notes@alice []", "delete r1 in Notes@alice", "delete zone Notes@alice (private)",
        ])
        var removal = StoreBatch(scope: .private)
        removal.pendingRemovals = [PendingChange.recordKey(r2, scope: .private)]
        try store.apply(removal)
        #expect(try store.pendingChanges().count == 3)
        #expect(PendingChange.saveRecord(r1, recordType: "Note", changedKeys: ["b", "a", "a"], scope: .private).changedKeys == ["a", "b"])
    }

    @Test(arguments: StoreKind.allCases)
    func zoneRemovalDropsRecordsTokenKnownZoneAndPending(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        try seed(store)
        var more = StoreBatch(scope: .private)
        more.savedRecords = [saved("o1", tag: "5", in: other)]
        more.zonesConfirmed = [other]
        more.pendingUpserts = [.saveRecord(Fixture.id("r1", in: zone), recordType: "Note", changedKeys: ["title"], scope: .private)]
        try store.apply(more)
        var removal = StoreBatch(scope: .private)
        removal.zoneRemovals = [ZoneRemoval(zoneID: zone)]
        removal.purgedZonesAdded = [zone]
        try store.apply(removal)
        #expect(try store.records(in: .private, zoneID: zone).isEmpty)
        #expect(try store.records(in: .private, zoneID: other).count == 1)
        #expect(try store.zoneToken(for: zone, in: .private) == nil)
        #expect(try store.knownZones(in: .private).map(\.zoneID) == [other])
        #expect(try store.pendingChanges().isEmpty)
        #expect(try store.purgedZones(in: .private) == [zone])
        #expect(try store.databaseToken(for: .private) == ServerChangeToken(rawValue: "db-1"))
    }

    @Test(arguments: StoreKind.allCases)
    func refetchMarksRecordsAndZonesStaleUntilSeenAgain(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        try seed(store)
        var begin = StoreBatch(scope: .private)
        begin.beginZoneRefetch = [zone]
        begin.beginDatabaseRefetch = true
        try store.apply(begin)
        #expect(try store.zoneToken(for: zone, in: .private) == nil)
        #expect(try store.databaseToken(for: .private) == nil)
        #expect(try store.staleRecordIDs(in: .private, zoneID: zone).map(\.recordName) == ["r1", "r2"])
        #expect(try store.knownZones(in: .private).map(\.isStale) == [true])
        var seen = StoreBatch(scope: .private)
        seen.savedRecords = [saved("r2", tag: "7")]
        seen.zonesNeedingFetch = [zone]
        try store.apply(seen)
        #expect(try store.staleRecordIDs(in: .private, zoneID: zone).map(\.recordName) == ["r1"])
        #expect(try store.knownZones(in: .private) == [KnownZone(zoneID: zone, needsFetch: true, isStale: false)])
        var fetched = StoreBatch(scope: .private)
        fetched.zonesFetched = [zone]
        try store.apply(fetched)
        #expect(try store.knownZones(in: .private) == [KnownZone(zoneID: zone, needsFetch: false, isStale: false)])
    }

    @Test(arguments: StoreKind.allCases)
    func everyFieldTypeSurvivesTheStore(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.make(directory)
        let fields: RecordFields = [
            "s": .string("héllo \u{1F600}"), "i": .int64(-42), "d": .double(.infinity), "n": .double(-0.5),
            "b": .bytes(Data([0, 1, 255])), "t": .timestamp(1_767_225_600_000),
            "r": .reference(RecordReference(recordName: "x", zoneID: other, action: .deleteSelf)),
            "r2": .reference(RecordReference(recordName: "y")),
            "l": .location(Location(latitude: 48.85, longitude: 2.35)),
            "a": .asset(AssetDescriptor(fileChecksum: "abc", size: 10, downloadURL: nil)),
            "e": .list(.string, []), "li": .list(.int64, [1, 2, 3]),
        ]
        let record = saved("all", tag: "z", fields)
        var batch = StoreBatch(scope: .private)
        batch.savedRecords = [record]
        try store.apply(batch)
        #expect(try store.record(record.recordID, in: .private) == record)
        #expect(try store.record(record.recordID, in: .shared) == nil)
    }

    @Test func sqliteStoreReloadsAfterReopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("phone.sqlite")
        do {
            let store = try SQLiteLocalStore(path: path)
            try seed(store)
            var batch = StoreBatch(scope: .private)
            batch.pendingUpserts = [.deleteRecord(Fixture.id("r2", in: zone), recordType: "Note", scope: .private)]
            batch.purgedZonesAdded = [other]
            try store.apply(batch)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))  // WAL mode
            try store.close()
        }
        let reopened = try SQLiteLocalStore(path: path)
        #expect(try reopened.records(in: .private, zoneID: zone) == [saved("r1", tag: "1"), saved("r2", tag: "2")])
        #expect(try reopened.databaseToken(for: .private) == ServerChangeToken(rawValue: "db-1"))
        #expect(try reopened.zoneToken(for: zone, in: .private) == ServerChangeToken(rawValue: "zone-1"))
        #expect(try reopened.pendingChanges() == [.deleteRecord(Fixture.id("r2", in: zone), recordType: "Note", scope: .private)])
        #expect(try reopened.purgedZones(in: .private) == [other])
        #expect(try reopened.knownZones(in: .private) == [KnownZone(zoneID: zone, needsFetch: true, isStale: false)])
    }
}
