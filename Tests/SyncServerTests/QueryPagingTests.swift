import Foundation
import SyncCore
import SyncServer
import Testing

/// `records/query` paging with `continuationMarker`: snapshot paging, so a
/// paged query returns the records that matched at its first page, each
/// once, with current values, however records change between pages.
@Suite struct QueryPagingTests {
    let rank = [RecordQuery.Sort("rank")]

    func query(
        _ f: Fixture, _ filters: [QueryFilter] = [], sort: [RecordQuery.Sort], in zoneID: RecordZoneID? = nil, zoneWide: Bool = false,
        limit: Int, marker: String? = nil, by caller: Caller? = nil
    ) throws -> QueryResult {
        try f.engine.queryRecords(
            caller: caller ?? f.alice, database: f.privateDB,
            QueryRequest(
                query: RecordQuery(recordType: "Note", predicate: QueryPredicate(filters), sortBy: sort), zoneID: zoneID, zoneWide: zoneWide,
                resultsLimit: limit, continuationMarker: marker))
    }

    /// Pages through a query, calling `between` after each page with the
    /// page number (1 for after the first) and the names returned so far.
    func pageAll(
        _ f: Fixture, _ filters: [QueryFilter] = [], sort: [RecordQuery.Sort], in zoneID: RecordZoneID? = nil, zoneWide: Bool = false,
        limit: Int, between: (Int, [String]) throws -> Void = { _, _ in }
    ) throws -> (records: [Record], pages: Int) {
        var records: [Record] = []
        var marker: String?
        var pages = 0
        repeat {
            let result = try query(f, filters, sort: sort, in: zoneID, zoneWide: zoneWide, limit: limit, marker: marker)
            #expect(result.records.count <= limit)
            records += result.records
            pages += 1
            marker = result.continuationMarker
            if marker != nil { try between(pages, records.map(\.recordID.recordName)) }
            guard pages < 10_000 else { throw FixtureError.unexpected("paging does not end") }
        } while marker != nil
        return (records, pages)
    }

    func names(_ records: [Record]) -> [String] { records.map(\.recordID.recordName) }

    func ranked(_ count: Int, in zone: RecordZoneID, _ f: Fixture) throws {
        try f.save((0..<count).map { f.record(String(format: "n%03d", $0), in: zone, ["rank": .int64(Int64($0))]) }, in: zone)
    }

    @Test func aRecordMovingBackAcrossTheMarkerIsNotReturnedAgain() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try ranked(20, in: notes, f)
        let (records, _) = try pageAll(f, sort: rank, in: notes, limit: 5) { page, seen in
            // A record already returned now sorts after everything not yet returned.
            try f.save(seen[page - 1], in: notes, ["rank": .int64(Int64(1_000 + page))])
        }
        #expect(names(records) == (0..<20).map { String(format: "n%03d", $0) }, "each once, in first-page order")
        #expect(records[1]["rank"] == .int64(1), "a record comes with its values as of its page")
    }

    @Test func aRecordMovingForwardAcrossTheMarkerIsNotSkipped() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try ranked(20, in: notes, f)
        let (records, _) = try pageAll(f, sort: rank, in: notes, limit: 5) { page, seen in
            // A record not yet returned now sorts before everything returned.
            let later = String(format: "n%03d", 19 - page)
            #expect(!seen.contains(later))
            try f.save(later, in: notes, ["rank": .int64(Int64(-page))])
        }
        #expect(names(records) == (0..<20).map { String(format: "n%03d", $0) })
        #expect(records.first { $0.recordID.recordName == "n018" }?["rank"] == .int64(-1))
    }

    @Test(arguments: [true, false])
    func sortingByModificationTimeWhileRecordsAreEdited(ascending: Bool) throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        for i in 0..<30 {
            f.clock.advance(by: 1_000)
            try f.save(String(format: "m%02d", i), in: notes, ["v": .int64(0)])
        }
        let byModTime = [RecordQuery.Sort("___modTime", ascending: ascending)]
        let initial = names(try query(f, sort: byModTime, in: notes, limit: 400).records)
        let (records, pages) = try pageAll(f, sort: byModTime, in: notes, limit: 4) { page, seen in
            f.clock.advance(by: 1_000)
            // An edit moves a record to the newest end of the order: one
            // already returned (ascending, it would come again) and the next
            // one due (descending, it would be passed over).
            try f.save(seen[page - 1], in: notes, ["v": .int64(Int64(page))])
            let due = try #require(initial.first { !seen.contains($0) })
            try f.save(due, in: notes, ["v": .int64(Int64(page))])
        }
        #expect(pages == 8)
        #expect(names(records) == initial, "each record once, in first-page order")
        let fresh = names(try query(f, sort: byModTime, in: notes, limit: 400).records)
        #expect(fresh.count == 30 && fresh != initial, "the records did move")
    }

    @Test func recordsDeletedOrNoLongerMatchingAreLeftOutAndNewOnesNotAdded() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try ranked(30, in: notes, f)
        let initial = (0..<30).map { String(format: "n%03d", $0) }
        let open = [QueryFilter("rank", .lessThan, .int64(100))]
        var left: Set<String> = []
        let (records, pages) = try pageAll(f, open, sort: rank, in: notes, limit: 4) { page, seen in
            // A deletion, a record changed to no longer match, two new records of which one matches.
            let due = initial.filter { !seen.contains($0) && !left.contains($0) }
            guard due.count >= 2 else { return }
            try f.delete([due[due.count - 1]], in: notes)
            try f.save(due[due.count / 2], in: notes, ["rank": .int64(500)])
            left.formUnion([due[due.count - 1], due[due.count / 2]])
            try f.save("new-\(page)", in: notes, ["rank": .int64(0)])
            try f.save([f.record("new-tag-\(page)", in: notes, type: "Tag", ["rank": .int64(1)])], in: notes)
        }
        #expect(pages >= 4 && left.count >= 6)
        #expect(names(records) == initial.filter { !left.contains($0) })
        #expect(records.allSatisfy { if case .int64(let n)? = $0["rank"] { n < 100 } else { false } })
    }

    @Test func aDeletedAndRecreatedZoneEndsItsRecordsAndAFullyDeletedTailEndsPaging() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try ranked(10, in: notes, f)
        let first = try query(f, sort: rank, in: notes, limit: 4)
        try f.deleteZone(notes)
        try f.createZone("Notes")
        try ranked(10, in: notes, f)
        let second = try query(f, sort: rank, in: notes, limit: 4, marker: first.continuationMarker)
        #expect(second.records.isEmpty, "the records of the zone the query searched are gone")
        #expect(second.continuationMarker == nil)

        let tail = try query(f, sort: rank, in: notes, limit: 4)
        try f.delete((4..<10).map { String(format: "n%03d", $0) }, in: notes)
        let rest = try query(f, sort: rank, in: notes, limit: 4, marker: tail.continuationMarker)
        #expect(rest.records.isEmpty && rest.continuationMarker == nil, "a page fills from further entries; nothing left, no marker")
    }

    @Test func manyPagesAcrossZonesWithChurnReturnExactlyTheSurvivors() throws {
        let f = try Fixture()
        let zones = try (0..<3).map { try f.createZone("Z\($0)") }
        for (index, zone) in zones.enumerated() {
            try f.save((0..<400).map { f.record("z\(index)-\($0)", in: zone, ["rank": .int64(Int64($0 % 50)), "keep": .int64(1)]) }, in: zone)
        }
        let filters = [QueryFilter("keep", .equals, .int64(1))]
        let sort = [RecordQuery.Sort("rank", ascending: false)]
        let initial = names(try pageAll(f, filters, sort: sort, zoneWide: true, limit: 400).records)
        #expect(initial.count == 1_200)
        var rng = SeededRandom(seed: 7)
        var touched: Set<String> = []
        var gone: Set<String> = []
        let (records, pages) = try pageAll(f, filters, sort: sort, zoneWide: true, limit: 7) { _, seenList in
            let seen = Set(seenList)
            for _ in 0..<3 {
                let zone = Int(rng.next() % 3)
                let name = "z\(zone)-\(rng.next() % 400)"
                guard !touched.contains(name) else { continue }
                switch rng.next() % 4 {
                case 0:
                    try f.delete([name], in: zones[zone])
                    touched.insert(name)
                    if !seen.contains(name) { gone.insert(name) }
                case 1:
                    try f.save(name, in: zones[zone], ["keep": .int64(0)])
                    touched.insert(name)
                    if !seen.contains(name) { gone.insert(name) }
                default:
                    try f.save(name, in: zones[zone], ["rank": .int64(Int64(rng.next() % 100) - 50)])
                }
            }
            try f.save("late-\(rng.next())", in: zones[0], ["keep": .int64(1), "rank": .int64(49)])
        }
        #expect(pages > 100)
        #expect(gone.count > 50)
        #expect(names(records) == initial.filter { !gone.contains($0) }, "the first page's matches, minus those gone, each once, in order")
    }

    @Test func aMarkerRepeatsItsPageAndWorksOnlyForItsOwnQueryAndCaller() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let other = try f.createZone("Other")
        try ranked(10, in: notes, f)
        let first = try query(f, sort: rank, in: notes, limit: 3)
        let marker = try #require(first.continuationMarker)
        let again = try query(f, sort: rank, in: notes, limit: 3, marker: marker)
        let retry = try query(f, sort: rank, in: notes, limit: 3, marker: marker)
        #expect(names(again.records) == ["n003", "n004", "n005"])
        #expect(retry == again, "a retried page is the same page")

        let otherZone = cloudError { try query(f, sort: rank, in: other, limit: 3, marker: marker) }
        #expect(otherZone?.code == .invalidArguments && otherZone?.reason.contains("another query") == true, "\(String(describing: otherZone))")
        let otherSort = cloudError { try query(f, sort: [RecordQuery.Sort("rank", ascending: false)], in: notes, limit: 3, marker: marker) }
        #expect(otherSort?.reason.contains("another query") == true)
        // Bob cannot read Alice's snapshot through her marker, even for his own zone of the same name.
        let bobs = try f.createZone("Notes", by: f.bob)
        let stolen = cloudError { try query(f, sort: rank, in: bobs, limit: 3, marker: marker, by: f.bob) }
        #expect(stolen?.code == .invalidArguments && stolen?.reason.contains("another query") == true, "\(String(describing: stolen))")
    }

    @Test func snapshotsExpireWhenIdleAndTheLeastRecentlyUsedGoFirst() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try ranked(10, in: notes, f)
        f.engine.queryPaging = QueryPagingLimits(idleExpiry: 60_000, maxSnapshots: 2, maxEntries: 100)
        let a = try #require(try query(f, sort: rank, in: notes, limit: 2).continuationMarker)
        let b = try #require(try query(f, sort: rank, in: notes, limit: 3).continuationMarker)
        _ = try query(f, sort: rank, in: notes, limit: 2, marker: a)  // a is now the most recently used
        let c = try #require(try query(f, sort: rank, in: notes, limit: 4).continuationMarker)
        #expect(f.engine.querySnapshotCount == 2)
        let evicted = cloudError { try query(f, sort: rank, in: notes, limit: 3, marker: b) }
        #expect(evicted?.code == .invalidArguments && evicted?.reason.contains("has expired") == true, "\(String(describing: evicted))")
        #expect(evicted?.reason.contains("Run the query again") == true)
        #expect(try query(f, sort: rank, in: notes, limit: 2, marker: a).records.count == 2)

        f.clock.advance(by: 59_000)
        #expect(try query(f, sort: rank, in: notes, limit: 2, marker: c).records.count == 2, "used within the idle limit")
        f.clock.advance(by: 60_001)
        let idle = cloudError { try query(f, sort: rank, in: notes, limit: 2, marker: c) }
        #expect(idle?.reason.contains("has expired") == true)
        #expect(f.engine.querySnapshotCount == 0)

        // The entry budget: a snapshot of 8 entries leaves room for no other of 8 under 10.
        f.engine.queryPaging = QueryPagingLimits(idleExpiry: 60_000, maxSnapshots: 10, maxEntries: 10)
        let big = try #require(try query(f, sort: rank, in: notes, limit: 2).continuationMarker)
        _ = try query(f, sort: rank, in: notes, limit: 2)
        #expect(f.engine.querySnapshotCount == 1)
        #expect(cloudError { try query(f, sort: rank, in: notes, limit: 2, marker: big) }?.reason.contains("has expired") == true)
    }

    @Test func aMarkerFromBeforeARestartOrAnImportHasExpired() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try ranked(10, in: notes, f)
        let marker = try #require(try query(f, sort: rank, in: notes, limit: 3).continuationMarker)
        // A restarted server: the same state (as a journal replay rebuilds it) in a new engine.
        let restarted = try Fixture()
        try restarted.engine.importState(f.engine.checkpointState(), keepingHistory: true)
        let after = cloudError { try query(restarted, sort: rank, in: notes, limit: 3, marker: marker) }
        #expect(after?.code == .invalidArguments && after?.reason.contains("has expired") == true, "\(String(describing: after))")
        // Its own first snapshot gets the same number at the same time: the marker still does not fit it.
        _ = try #require(try query(restarted, sort: rank, in: notes, limit: 4).continuationMarker)
        #expect(cloudError { try query(restarted, sort: rank, in: notes, limit: 3, marker: marker) }?.reason.contains("has expired") == true)
        // Replacing the state in place ends the snapshots too.
        try f.engine.importState(f.engine.exportState(), keepingHistory: false)
        #expect(cloudError { try query(f, sort: rank, in: notes, limit: 3, marker: marker) }?.reason.contains("has expired") == true)
    }
}

