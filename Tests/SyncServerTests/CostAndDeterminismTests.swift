import Foundation
import SyncCore
import SyncServer
import Testing

/// The cost of a fetch must follow what changed, not how much history the zone
/// has. These tests check that structurally — what a fetch returns — never time.
@Suite struct CostTests {
    @Test func recordUpdatedManyTimesAppearsOnce() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("busy", in: notes, ["v": 0])
        let early = try f.currentZoneToken(notes)
        try f.save("quiet", in: notes)
        var last = try f.save("busy", in: notes, ["v": 1])
        for v in 2...1_000 { last = try f.save("busy", in: notes, ["v": .int64(Int64(v))]) }

        let fromStart = try f.allZoneChanges(notes, limit: 1)
        #expect(fromStart.changes.summary == ["quiet", "busy"])
        #expect(fromStart.batches == 2)
        #expect(fromStart.changes.records.last == last)
        let fromEarly = try f.zoneChanges(notes, since: early, limit: 1)
        #expect(fromEarly.changes.summary == ["quiet"])
        #expect(try f.zoneChanges(notes, since: fromEarly.serverChangeToken).changes == [.changed(last)])
    }

    @Test func recentTokenInALargeHistoryReturnsOnlyTheRecentChanges() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        // 50,000 changes: 500 records, each saved 100 times.
        for round in 0..<100 {
            var start = 1
            while start <= 500 {
                let records = (start..<(start + 250)).map { f.record("r\($0)", in: notes, ["round": .int64(Int64(round))]) }
                try f.save(records, in: notes)
                start += 250
            }
        }
        let recent = try f.currentZoneToken(notes)
        try f.save("r17", in: notes, ["round": 100])
        try f.save("fresh", in: notes)
        try f.delete(["r400"], in: notes)

        let batch = try f.zoneChanges(notes, since: recent, limit: 400)
        #expect(batch.changes.summary == ["r17", "fresh", "-r400"])
        #expect(!batch.moreComing)
        #expect(try f.zoneChanges(notes, since: batch.serverChangeToken).changes.isEmpty)

        let everything = try f.allZoneChanges(notes)
        #expect(everything.changes.count == 500, "each live record once: 499 old ones and 'fresh'")
        #expect(everything.batches == 2)
        #expect(Set(everything.changes.summary).count == 500)
        #expect(everything.changes.records.allSatisfy { $0["round"] == 99 || $0.recordID.recordName == "r17" || $0.recordID.recordName == "fresh" })
    }
}

@Suite struct DeterminismTests {
    /// A scripted run that touches every kind of token; returns them all.
    func tokens(seed: UInt64) throws -> [String] {
        let f = try Fixture(configuration: ServerConfiguration(seed: seed))
        var tokens: [ServerChangeToken] = []
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        try f.saveMany(7, in: a)
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: a, participants: ["bob"], revoke: false)
        tokens.append(try f.databaseChanges(limit: 1).serverChangeToken)
        tokens.append(try f.currentDatabaseToken())
        tokens.append(try f.currentDatabaseToken(by: f.bob, database: f.sharedDB))
        tokens.append(try f.zoneChanges(a, limit: 3).serverChangeToken)
        try f.save("x", in: a, by: f.bob, database: f.sharedDB)
        try f.delete(["r2"], in: a)
        tokens.append(try f.currentZoneToken(a))
        tokens.append(try f.currentZoneToken(a, by: f.bob, database: f.sharedDB))
        tokens.append(try f.currentZoneToken(b))
        tokens += try f.engine.listRecordZones(caller: f.alice, database: f.privateDB).compactMap(\.syncToken)
        tokens += try f.engine.listRecordZones(caller: f.bob, database: f.sharedDB).compactMap(\.syncToken)
        return tokens.map(\.rawValue)
    }

    @Test func sameSeedAndOperationsGiveByteIdenticalTokens() throws {
        let first = try tokens(seed: 42)
        let second = try tokens(seed: 42)
        #expect(first.count == 10)
        #expect(first == second)
        #expect(Set(first).count == 7, "zones/list repeats the tokens of the three drained fetches, nothing else repeats")
        let other = try tokens(seed: 43)
        #expect(Set(first).isDisjoint(with: other), "another seed signs with another key")
    }

    @Test func sameSeedGivesSameChangeTagsAndWebAuthTokens() throws {
        func run() throws -> [String] {
            let f = try Fixture(configuration: ServerConfiguration(seed: 5))
            let notes = try f.createZone("Notes")
            let tags = try (1...3).map { try f.save("n\($0)", in: notes).recordChangeTag ?? "" }
            return tags + f.engine.users.map(\.webAuthToken)
        }
        #expect(try run() == run())
    }
}
