import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector

/// A zone on a pretend server: a change log in which each name stands once,
/// at its latest change, as the engine's; a position is a token "p<sequence>".
private struct FakeZone {
    let zoneID = RecordZoneID(zoneName: "Notes", ownerName: "alice")
    var records: [String: Record] = [:]
    /// Latest change per name.
    var changedAt: [String: Int] = [:]
    var sequence = 0
    /// Tokens before this were compacted away.
    var floor = 0
    var tags = 0

    var token: ServerChangeToken { ServerChangeToken(rawValue: "p\(sequence)") }
    var mark: RecordRowsModel.ServerMark {
        RecordRowsModel.ServerMark(token: token, lastSequence: Int64(sequence), recordCount: records.count)
    }

    mutating func save(_ name: String, title: String) -> Record {
        tags += 1
        var record = Record(recordID: RecordID(recordName: name, zoneID: zoneID), recordType: Self.type(of: name), fields: ["title": .string(title)])
        record.recordChangeTag = "t\(tags)"
        // Coarse times, so that the sort by last change has ties (broken by name).
        record.modified = RecordStamp(timestamp: Int64(sequence / 3), userRecordName: "alice")
        records[name] = record
        sequence += 1
        changedAt[name] = sequence
        return record
    }

    mutating func delete(_ name: String) {
        guard records.removeValue(forKey: name) != nil else { return }
        sequence += 1
        changedAt[name] = sequence
    }

    /// A few record types, so that the sort by type has groups.
    static func type(of name: String) -> String {
        ["Note", "Task", "Photo"][name.utf8.count % 3]
    }

    func changes(since token: ServerChangeToken) -> Result<ZoneRecordChanges, CloudError> {
        guard let since = Int(token.rawValue.dropFirst()), since >= floor else {
            return .failure(CloudError(.changeTokenExpired, "expired"))
        }
        let changes = changedAt.filter { $0.value > since }.sorted { $0.value < $1.value }.map { name, _ -> RecordChange in
            if let record = records[name] { return .changed(record) }
            return .deleted(RecordID(recordName: name, zoneID: zoneID), recordType: "Note")
        }
        return .success(ZoneRecordChanges(changes: changes, position: self.token))
    }

    func answer(_ read: RecordRowsRead) -> RecordRowsServerAnswer {
        switch read {
        case .everything:
            return .everything(ZoneRecordsAtPosition(records: Array(records.values), position: token))
        case .changes(let since, let deviceSince):
            let server: ZoneRecordChanges
            switch changes(since: since) {
            case .success(let changes): server = changes
            case .failure(let error): return .refused(error)
            }
            guard let deviceSince else { return .changes(server: server, device: nil) }
            switch changes(since: deviceSince) {
            case .success(let changes): return .changes(server: server, device: changes)
            case .failure(let error): return .refused(error)
            }
        }
    }
}

/// A device's copy of the zone, with changes waiting to be sent.
private final class FakeDevice: RecordRowsDevice {
    var cache: [String: Record] = [:]
    var pending: Set<String> = []
    var token: ServerChangeToken?

    func cachedRecords() -> [Record] { Array(cache.values) }
    func cachedRecord(named name: String) -> Record? { cache[name] }
    func pendingRecordNames() -> Set<String> { pending }
}

@Suite struct RecordRowsModelTests {
    private let source = RecordRowsModel.Source(zone: ZoneKey(scope: .private, zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice")), device: "Mac")

    /// Names that read alike in different ways: digits compared as numbers, leading zeros, case.
    private static let names = ["note-1", "note-01", "note-2", "note-10", "note-107", "note-41", "Note-3", "a", "b-9", "z", "note-", "10", "9"]
        + (0..<30).map { "r\($0 * 37)" }

    /// Random saves, deletes and renames on the server, local saves, deletes,
    /// sends and fetches on the device, a compaction now and then; after each
    /// step the rows kept by the model equal the rows read from scratch
    /// (rows, markers, counts, the unsent total, the filter's rows).
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func incrementalRowsEqualAFullRebuild(seed: UInt64) throws {
        try checkAgainstRebuild(seed: seed, order: .naturalName, filter: "")
    }

    @Test(arguments: [7, 8] as [UInt64])
    func incrementalRowsEqualAFullRebuildWithAFilter(seed: UInt64) throws {
        try checkAgainstRebuild(seed: seed, order: .naturalName, filter: "1")
    }

    /// The model is generic over the order: by title here, so an edit moves a row.
    @Test(arguments: [9, 10] as [UInt64])
    func incrementalRowsEqualAFullRebuildInAnotherOrder(seed: UInt64) throws {
        let byTitle = RecordRowOrder { a, b in
            func title(_ row: RecordRow) -> String { RecordRow.summary(of: row.server ?? row.device) }
            return title(a) < title(b)
        }
        try checkAgainstRebuild(seed: seed, order: byTitle, filter: "7")
    }

    /// Each column sort of the pane (`S`): the rows themselves are kept in
    /// that order, so the filter's rows stay ascending indices into them.
    @Test(arguments: RecordSort.allCases)
    func incrementalRowsEqualAFullRebuildUnderEachSort(sort: RecordSort) throws {
        try checkAgainstRebuild(seed: 11, order: RecordRowOrder(sort), filter: "")
        try checkAgainstRebuild(seed: 12, order: RecordRowOrder(sort), filter: "1")
    }

    /// Changing the sort re-sorts the rows held (no read of the server), and
    /// later changes are applied in the new order.
    @Test func aSortChangeReordersTheRowsHeldWithoutARead() {
        var zone = FakeZone()
        for name in Self.names { _ = zone.save(name, title: "t") }
        let device = FakeDevice()
        var model = RecordRowsModel()
        var list = RecordList()
        model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { zone.answer($0) }
        for sort in [RecordSort.type, .modified, .name, .modified] {
            model.reorder(&list, by: RecordRowOrder(sort))
            var reads: [RecordRowsRead] = []
            model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { reads.append($0); return zone.answer($0) }
            #expect(reads.isEmpty, "\(sort): nothing read")
            #expect(list.rows.map(\.name) == list.rows.sorted { sort.areInIncreasingOrder($0, $1) }.map(\.name), "\(sort)")
        }
        #expect(model.rebuilds == 1)
        // Under the sort by last change, a new save moves to the top without a rebuild.
        _ = zone.save("note-1", title: "again")
        _ = zone.save("note-2", title: "again")
        _ = zone.save("note-3", title: "again")
        model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { zone.answer($0) }
        #expect(Set(list.rows.prefix(3).map(\.name)) == ["note-1", "note-2", "note-3"])
        #expect(model.rebuilds == 1)
    }

    private func checkAgainstRebuild(seed: UInt64, order: RecordRowOrder, filter: String) throws {
        var random = SeededRandom(seed: seed)
        var zone = FakeZone()
        let device = FakeDevice()
        var model = RecordRowsModel(order: order)
        var list = RecordList()
        let names = Self.names
        func pick() -> String { names[Int(random.next() % UInt64(names.count))] }
        func title() -> String { "t\(random.next() % 50)" }
        var compactions = 0

        for step in 0..<400 {
            switch random.next() % 10 {
            case 0, 1:
                _ = zone.save(pick(), title: title())
            case 2:
                zone.delete(pick())
            case 3:
                // A rename: the old name goes, a new one comes, in one step.
                let old = pick()
                if let record = zone.records[old] {
                    zone.delete(old)
                    _ = zone.save(pick(), title: RecordRow.summary(of: record))
                }
            case 4:
                // A local save on the device: a change waiting to be sent.
                let name = pick()
                var record = device.cache[name] ?? Record(recordID: RecordID(recordName: name, zoneID: zone.zoneID), recordType: FakeZone.type(of: name))
                record["title"] = .string(title())
                device.cache[name] = record
                device.pending.insert(name)
                model.note(.changeQueued(.saveRecord(
                    record.recordID, recordType: "Note", changedKeys: ["title"], scope: .private, isNewRecord: record.recordChangeTag == nil,
                    savePolicy: .changedKeys)), device: "Mac")
            case 5:
                // A local delete.
                let name = pick()
                if let record = device.cache.removeValue(forKey: name) {
                    device.pending.insert(name)
                    model.note(.changeQueued(.deleteRecord(record.recordID, recordType: "Note", scope: .private)), device: "Mac")
                }
            case 6:
                // The device sends what waits: the server takes its versions.
                var saved: [RecordID] = []
                var deleted: [RecordID] = []
                for name in device.pending.sorted() {
                    if let local = device.cache[name] {
                        device.cache[name] = zone.save(name, title: RecordRow.summary(of: local))
                        saved.append(local.recordID)
                    } else {
                        zone.delete(name)
                        deleted.append(RecordID(recordName: name, zoneID: zone.zoneID))
                    }
                }
                device.pending = []
                model.note(.changesSent(scope: .private, zoneID: zone.zoneID, saved: saved, deleted: deleted), device: "Mac")
            case 7, 8:
                // The device fetches: the server's changes since its token (all, the first time).
                if let token = device.token, case .success(let changes) = zone.changes(since: token) {
                    for change in changes.changes where !device.pending.contains(change.recordID.recordName) {
                        device.cache[change.recordID.recordName] = change.record
                    }
                } else {
                    device.cache = zone.records
                    for name in device.pending { device.cache[name] = nil }
                    device.pending = []
                }
                device.token = zone.token
            default:
                if random.next() % 8 == 0 {
                    // History compacted: every older token expires.
                    zone.floor = zone.sequence
                    compactions += 1
                }
            }
            model.update(&list, of: source, mark: zone.mark, deviceToken: device.token, device: device) { zone.answer($0) }
            list.apply(filter: filter, mode: .both)

            var fresh = RecordRowsModel(order: order)
            var expected = RecordList()
            fresh.update(&expected, of: source, mark: zone.mark, deviceToken: device.token, device: device) { zone.answer($0) }
            expected.apply(filter: filter, mode: .both)
            try #require(list.rows == expected.rows, "step \(step): \(list.rows.map(\.name)) vs \(expected.rows.map(\.name))")
            try #require(list.counts == expected.counts, "step \(step)")
            try #require(list.unsent == expected.unsent, "step \(step)")
            try #require(list.visible == expected.visible, "step \(step): filter rows")
        }
        // Read from scratch only at the start, at the device's first fetch, and after a compaction (the model's position or the device's token expired).
        #expect(model.rebuilds <= 2 + 2 * compactions, "\(model.rebuilds) rebuilds, \(compactions) compactions")
        #expect(model.updates > 100)
    }

    @Test func nothingChangedReadsNothing() {
        var zone = FakeZone()
        _ = zone.save("note-1", title: "a")
        let device = FakeDevice()
        var model = RecordRowsModel()
        var list = RecordList()
        var reads: [RecordRowsRead] = []
        model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { reads.append($0); return zone.answer($0) }
        #expect(reads == [.everything])
        #expect(!model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { reads.append($0); return zone.answer($0) })
        #expect(reads == [.everything], "no read when the zone's mark and the device's token did not move")
        _ = zone.save("note-2", title: "b")
        #expect(model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { reads.append($0); return zone.answer($0) })
        #expect(reads.last == .changes(since: ServerChangeToken(rawValue: "p1"), deviceSince: nil))
        #expect(list.rows.map(\.name) == ["note-1", "note-2"])
        #expect(model.rebuilds == 1)
    }

    @Test func anotherZoneOrDeviceIsReadFromScratch() {
        var zone = FakeZone()
        _ = zone.save("note-1", title: "a")
        let device = FakeDevice()
        var model = RecordRowsModel()
        var list = RecordList()
        model.update(&list, of: source, mark: zone.mark, deviceToken: nil, device: device) { zone.answer($0) }
        var other = source
        other.device = "iPhone"
        model.update(&list, of: other, mark: zone.mark, deviceToken: nil, device: device) { zone.answer($0) }
        #expect(model.rebuilds == 2)
        // Over HTTP, before the server answered: the rows of the old zone go, and wait.
        other.zone = ZoneKey(scope: .private, zoneID: RecordZoneID(zoneName: "Other", ownerName: "alice"))
        model.update(&list, of: other, mark: zone.mark, deviceToken: nil, device: device) { _ in nil }
        #expect(list.rows.isEmpty)
        model.update(&list, of: other, mark: zone.mark, deviceToken: nil, device: device) { zone.answer($0) }
        #expect(list.rows.map(\.name) == ["note-1"])
        #expect(model.rebuilds == 3)
    }

    @Test func batchEditsKeepEveryRowInPlace() {
        var rows = Array(0..<20)
        rows.removeAll(atSortedIndices: [0, 3, 4, 19])
        #expect(rows == [1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18])
        rows.insert([-1, 3, 4, 40, 41], atSortedPositions: [0, 2, 2, 16, 16])
        #expect(rows == [-1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 40, 41])
        var strings = (0..<10).map { "s\($0)" }
        strings.removeAll(atSortedIndices: [1, 2, 8])
        strings.insert(["s1", "s2", "s8"], atSortedPositions: [1, 1, 6])
        #expect(strings == (0..<10).map { "s\($0)" })
    }
}

/// The records pane in the controller: changes applied, not rebuilt.
@Suite struct RecordRowsInControllerTests {
    @Test func aRecordSavedOnTheServerShowsAfterTheNextUpdateWithoutARebuild() async throws {
        let inspector = try await makeInspector()
        let builds = inspector.recordListBuilds
        let updates = inspector.recordListUpdates
        let mac = try inspector.device("Mac")
        await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "note-100", zoneID: notesZone), recordType: "Note", fields: ["title": "From the Mac"]),
            on: mac)
        #expect(!inspector.state.snapshot.records.rows.contains { $0.name == "note-100" }, "not before the update")
        await inspector.refresh()
        let row = try #require(inspector.state.snapshot.records.rows.first { $0.name == "note-100" })
        #expect(row.marker == .new)
        #expect(row.server?["title"] == .string("From the Mac"))
        #expect(inspector.recordListBuilds == builds)
        #expect(inspector.recordListUpdates == updates + 1)
        #expect(inspector.lines.joined(separator: "\n").contains("note-100"))

        // The iPhone (on screen) fetches: the row is the same on both sides, still no rebuild.
        await inspector.simulation.fetch(on: try inspector.device("iPhone"))
        await inspector.refresh()
        #expect(inspector.state.snapshot.records.rows.first { $0.name == "note-100" }?.marker == .same)
        #expect(inspector.recordListBuilds == builds)
        try expectRowsEqualARebuild(inspector)
    }

    @Test func aLocalEditAndItsSendAreAppliedToTheRow() async throws {
        let inspector = try await makeInspector()
        let builds = inspector.recordListBuilds
        let iPhone = try inspector.device("iPhone")
        let first = try #require(inspector.state.snapshot.records.rows.first)
        var record = try #require(first.device)
        record["title"] = .string("Edited here")
        try iPhone.engine.save(record)
        await inspector.refresh()
        let edited = try #require(inspector.state.snapshot.records.rows.first { $0.name == first.name })
        #expect(edited.hasPendingChange)
        #expect(edited.device?["title"] == .string("Edited here"))
        await inspector.simulation.sync(iPhone)
        await inspector.refresh()
        let sent = try #require(inspector.state.snapshot.records.rows.first { $0.name == first.name })
        #expect(!sent.hasPendingChange)
        #expect(sent.server?["title"] == .string("Edited here"))
        #expect(inspector.recordListBuilds == builds)
        try expectRowsEqualARebuild(inspector)
    }

    @Test func switchingZonesRebuildsAndExpiredHistoryRebuilds() async throws {
        let inspector = try await makeInspector()
        try await inspector.selectZone("Notes")
        // Each step to another zone reads that zone's rows from scratch, once.
        var builds = inspector.recordListBuilds
        var zone = inspector.state.zone?.key
        for key in ["j", "j", "k", "k"] as [Character] {
            await inspector.handle(.character(key))
            let moved = inspector.state.zone?.key != zone
            #expect(inspector.recordListBuilds == builds + (moved ? 1 : 0), "after \(key)")
            await inspector.refresh()
            #expect(inspector.recordListBuilds == builds + (moved ? 1 : 0), "a refresh with nothing changed reads nothing")
            builds = inspector.recordListBuilds
            zone = inspector.state.zone?.key
        }
        try await inspector.selectZone("Notes")
        let notesBuilds = inspector.recordListBuilds
        #expect(notesBuilds > 0)
        // A change, then the history compacted: the model's position expired, so it reads everything again.
        let mac = try inspector.device("Mac")
        await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "before-compaction", zoneID: notesZone), recordType: "Note", fields: ["title": "x"]), on: mac)
        await inspector.simulation.compact(on: mac)
        await inspector.refresh()
        #expect(inspector.recordListBuilds == notesBuilds + 1)
        #expect(inspector.state.snapshot.records.rows.contains { $0.name == "before-compaction" })
        try expectRowsEqualARebuild(inspector)
    }

    @Test func underAColumnSortChangesAreAppliedInThatOrderWithoutARebuild() async throws {
        let inspector = try await makeInspector()
        try await inspector.selectZone("Notes")
        let builds = inspector.recordListBuilds
        await inspector.press(.character("S"))  // by last change, newest first
        #expect(inspector.state.recordSort == .modified)
        #expect(inspector.recordListBuilds == builds, "a sort re-sorts the rows held: nothing read")
        let mac = try inspector.device("Mac")
        await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "a-latest", zoneID: notesZone), recordType: "Note", fields: ["title": "newest"]), on: mac)
        await inspector.refresh()
        #expect(inspector.recordListBuilds == builds)
        let records = inspector.state.snapshot.records
        #expect(records.row(at: 0)?.name == "a-latest")
        #expect(records.rows.map(\.name) == records.rows.sorted { RecordSort.modified.areInIncreasingOrder($0, $1) }.map(\.name))
        #expect(records.index(of: "a-latest") == (0, true))
        try expectRowsEqualARebuild(inspector, order: RecordRowOrder(.modified))
    }

    /// The pane's rows equal rows read from scratch for the same zone and device.
    private func expectRowsEqualARebuild(_ inspector: InspectorController, order: RecordRowOrder = .naturalName) throws {
        let device = try #require(inspector.state.device.flatMap { inspector.simulation.device(named: $0.name) })
        let zone = try #require(inspector.state.zone)
        var model = RecordRowsModel(order: order)
        var list = RecordList()
        let observer = InProcessServerObserver(server: inspector.simulation.server, container: inspector.simulation.container)
        model.update(
            &list, of: RecordRowsModel.Source(zone: zone.key, device: device.name),
            mark: RecordRowsModel.ServerMark(token: zone.serverToken, lastSequence: zone.lastSequence, recordCount: zone.recordCount),
            deviceToken: zone.deviceToken, device: SyncDeviceRecords(device: device, zone: zone.key)
        ) { observer.answerNow($0, zone: zone.key, user: device.user, environment: device.environment) }
        #expect(inspector.state.snapshot.records.rows == list.rows)
        #expect(inspector.state.snapshot.records.counts == list.counts)
        #expect(inspector.state.snapshot.records.unsent == list.unsent)
    }
}
