import Foundation
import SyncCore
import SyncServer
import Testing

/// `records/query` in the engine: filters, sort, paging, zones, index.
@Suite struct QueryTests {
    func query(
        _ f: Fixture, _ type: String, _ filters: [QueryFilter] = [], sort: [RecordQuery.Sort] = [], in zoneID: RecordZoneID? = nil,
        zoneWide: Bool = false, limit: Int? = nil, marker: String? = nil, desiredKeys: [String]? = nil, database: DatabaseID? = nil,
        by caller: Caller? = nil
    ) throws -> QueryResult {
        try f.engine.queryRecords(
            caller: caller ?? f.alice, database: database ?? f.privateDB,
            QueryRequest(
                query: RecordQuery(recordType: type, predicate: QueryPredicate(filters), sortBy: sort), zoneID: zoneID, zoneWide: zoneWide,
                resultsLimit: limit, continuationMarker: marker, desiredKeys: desiredKeys))
    }

    func names(_ result: QueryResult) -> [String] { result.records.map(\.recordID.recordName) }

    @Test func everyComparatorFiltersAndFiltersAreANDed() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save((1...6).map { i in
            f.record("n\(i)", in: notes, [
                "stars": .int64(Int64(i)), "title": .string(i % 2 == 0 ? "even \(i)" : "odd \(i)"),
                "tags": .list(.string, [.string("t\(i)"), .string("all")]),
            ])
        }, in: notes)
        try f.save([f.record("other", in: notes, type: "Tag", ["stars": .int64(3)])], in: notes)
        let cases: [(QueryFilter, [String])] = [
            (QueryFilter("stars", .equals, .int64(3)), ["n3"]),
            (QueryFilter("stars", .notEquals, .int64(3)), ["n1", "n2", "n4", "n5", "n6"]),
            (QueryFilter("stars", .lessThan, .int64(3)), ["n1", "n2"]),
            (QueryFilter("stars", .lessThanOrEquals, .int64(3)), ["n1", "n2", "n3"]),
            (QueryFilter("stars", .greaterThan, .double(4.5)), ["n5", "n6"]),
            (QueryFilter("stars", .greaterThanOrEquals, .int64(5)), ["n5", "n6"]),
            (QueryFilter("stars", .in, .list(.int64, [.int64(1), .int64(6)])), ["n1", "n6"]),
            (QueryFilter("stars", .notIn, .list(.int64, [.int64(1), .int64(6)])), ["n2", "n3", "n4", "n5"]),
            (QueryFilter("title", .beginsWith, .string("even")), ["n2", "n4", "n6"]),
            (QueryFilter("tags", .listContains, .string("t4")), ["n4"]),
            (QueryFilter("___recordID", .equals, .reference(RecordReference(recordName: "n2"))), ["n2"]),
        ]
        for (filter, expected) in cases {
            #expect(names(try query(f, "Note", [filter], in: notes)) == expected, "\(filter)")
        }
        let both = try query(f, "Note", [QueryFilter("stars", .greaterThan, .int64(1)), QueryFilter("title", .beginsWith, .string("odd"))], in: notes)
        #expect(names(both) == ["n3", "n5"])
        #expect(names(try query(f, "Tag", in: notes)) == ["other"], "a query reads one type only")
        #expect(names(try query(f, "Nothing", in: notes)).isEmpty)
    }

    @Test func sortByFieldsThenNameAndDesiredKeys() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save([
            f.record("a", in: notes, ["group": .string("x"), "rank": .int64(2), "body": .string("long")]),
            f.record("b", in: notes, ["group": .string("y"), "rank": .int64(1)]),
            f.record("c", in: notes, ["group": .string("x"), "rank": .int64(1)]),
            f.record("d", in: notes, ["rank": .int64(0)]),
        ], in: notes)
        let sorted = try query(f, "Note", sort: [RecordQuery.Sort("group"), RecordQuery.Sort("rank", ascending: false)], in: notes)
        #expect(names(sorted) == ["a", "c", "b", "d"], "group ascending, rank descending, records without group last")
        let byCreation = try query(f, "Note", sort: [RecordQuery.Sort("___createTime", ascending: false)], in: notes)
        #expect(Set(names(byCreation)) == ["a", "b", "c", "d"])
        let keys = try query(f, "Note", in: notes, desiredKeys: ["rank"])
        #expect(keys.records.allSatisfy { $0.fields.names == ["rank"] })
    }

    @Test func pagesNeverSkipOrRepeatWhileRecordsChange() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save((0..<50).map { f.record(String(format: "n%02d", $0), in: notes, ["rank": .int64(Int64($0 % 7))]) }, in: notes)
        var seen: [String] = []
        var marker: String?
        var page = 0
        var deleted: Set<String> = []
        repeat {
            let result = try query(f, "Note", sort: [RecordQuery.Sort("rank")], in: notes, limit: 6, marker: marker)
            seen += names(result)
            marker = result.continuationMarker
            page += 1
            // Between pages: unrelated edits, new records, deletions.
            try f.save("n\(page)x", in: notes, ["rank": .int64(3), "note": .string("added")])
            try f.save([f.record(String(format: "n%02d", page), in: notes, ["other": .string("edited \(page)")])], in: notes)
            let victim = String(format: "n%02d", 49 - page)
            if !seen.contains(victim) {
                try f.delete([victim], in: notes)
                deleted.insert(victim)
            }
        } while marker != nil
        #expect(Set(seen).count == seen.count, "no record twice: \(seen)")
        let original = (0..<50).map { String(format: "n%02d", $0) }
        for name in original where !deleted.contains(name) {
            #expect(seen.contains(name), "\(name) was skipped")
        }
        for name in deleted { #expect(!seen.contains(name)) }
    }

    @Test func badOrForeignMarkersAreBadRequests() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(5, in: notes)
        let first = try query(f, "Note", in: notes, limit: 2)
        let marker = try #require(first.continuationMarker)
        for bad in ["", "garbage", "e30"] {
            let error = cloudError { try query(f, "Note", in: notes, limit: 2, marker: bad) }
            #expect(error?.code == .invalidArguments && error?.reason.contains("continuationMarker") == true, "\(String(describing: error))")
        }
        let other = cloudError { try query(f, "Note", [QueryFilter("n", .greaterThan, .int64(0))], in: notes, limit: 2, marker: marker) }
        #expect(other?.reason.contains("another query") == true, "\(String(describing: other))")
        let badFilter = cloudError { try query(f, "Note", [QueryFilter("n", .beginsWith, .int64(1))], in: notes) }
        #expect(badFilter?.code == .invalidArguments)
    }

    @Test func zonesTokensAndThePublicDatabase() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let work = try f.createZone("Work")
        try f.save("n1", in: notes)
        try f.save("w1", in: work)
        let one = try query(f, "Note", in: notes)
        #expect(names(one) == ["n1"])
        let listed = try f.engine.listRecordZones(caller: f.alice, database: f.privateDB).first { $0.zoneID == notes }?.syncToken
        #expect(one.syncToken == listed, "a single-zone query carries the zone's current token")
        let wide = try query(f, "Note", zoneWide: true)
        #expect(Set(wide.records.map(\.recordID)) == [RecordID(recordName: "n1", zoneID: notes), RecordID(recordName: "w1", zoneID: work)])
        #expect(wide.syncToken == nil)
        // Bob cannot query Alice's zone.
        #expect(cloudError { try query(f, "Note", in: notes, by: f.bob) } != nil)
        // The public default zone is queryable, without a user too.
        let publicDB = f.db(.public)
        let defaultZone = RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
        try f.save([f.record("p1", in: defaultZone, ["n": .int64(1)])], in: defaultZone, database: publicDB)
        #expect(names(try query(f, "Note", database: publicDB, by: Caller(user: ""))) == ["p1"])
    }

    @Test func theIndexFollowsSavesDeletesAndImports() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(10, in: notes)
        try f.delete(["r3", "r4"], in: notes)
        #expect(names(try query(f, "Note", in: notes)).count == 8)
        let file = f.engine.exportState()
        try f.engine.importState(file, keepingHistory: false)
        #expect(names(try query(f, "Note", in: notes)).count == 8, "an imported state is indexed")
    }
}
