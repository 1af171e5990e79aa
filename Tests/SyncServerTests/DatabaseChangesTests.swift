import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct DatabaseChangesTests {
    @Test func zonesChangedSinceTheTokenAreListedOnceEachInOrderOfLastChange() throws {
        let f = try Fixture()
        let old = try f.createZone("Old")
        let token = try f.currentDatabaseToken()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        try f.save("a1", in: a)
        try f.save("a2", in: a)
        try f.save("o1", in: old)
        let changes = try f.databaseChanges(since: token)
        #expect(changes.changes == [.zoneChanged(b), .zoneChanged(a), .zoneChanged(old)])
        #expect(!changes.moreComing)
        #expect(try f.databaseChanges(since: changes.serverChangeToken).changes.isEmpty)
    }

    @Test func removedZonesAreReportedWithTheirOwnReason() throws {
        let f = try Fixture()
        let deleted = try f.createZone("Deleted")
        let purged = try f.createZone("Purged")
        let reset = try f.createZone("Reset")
        let token = try f.currentDatabaseToken()
        try f.deleteZone(deleted)
        try f.engine.purgeRecordZone(caller: f.alice, database: f.privateDB, zoneID: purged)
        try f.engine.encryptedDataReset(caller: f.alice, database: f.privateDB)
        #expect(try f.databaseChanges(since: token).changes == [
            .zoneRemoved(deleted, reason: .deleted),
            .zoneRemoved(purged, reason: .purged),
            .zoneRemoved(reset, reason: .encryptedDataReset),
        ])
    }

    @Test func zoneCreatedAndDeletedSinceTheTokenIsReportedOnceAsRemoved() throws {
        let f = try Fixture()
        let token = try f.currentDatabaseToken()
        let brief = try f.createZone("Brief")
        try f.save("x", in: brief)
        try f.deleteZone(brief)
        #expect(try f.databaseChanges(since: token).changes == [.zoneRemoved(brief, reason: .deleted)])
    }

    @Test func privateDefaultZoneIsNeverListed() throws {
        let f = try Fixture()
        let token = try f.currentDatabaseToken()
        let home = RecordZoneID.defaultZone(ownerName: "alice")
        try f.save("h1", in: home)
        try f.delete(["h1"], in: home)
        #expect(try f.databaseChanges(since: token).changes.isEmpty)
        #expect(try f.databaseChanges().changes.isEmpty)
        let notes = try f.createZone("Notes")
        #expect(try f.databaseChanges().changes == [.zoneChanged(notes)])
    }

    @Test func resultsLimitGivesMoreComingAndAResumableToken() throws {
        let f = try Fixture()
        let names = ["Z1", "Z2", "Z3", "Z4", "Z5"]
        for name in names { try f.createZone(name) }
        var token: ServerChangeToken?
        var seen: [String] = []
        var moreComing: [Bool] = []
        repeat {
            let batch = try f.databaseChanges(since: token, limit: 2)
            #expect(batch.changes.count <= 2)
            seen += batch.changes.summary
            moreComing.append(batch.moreComing)
            token = batch.serverChangeToken
        } while moreComing.last == true && moreComing.count < 10
        #expect(seen == names)
        #expect(moreComing == [true, true, false])
    }

    @Test func nilTokenListsEveryZoneThatExistsNowAndNoRemovedOnes() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        let c = try f.createZone("C")
        let d = try f.createZone("D")
        try f.save("b1", in: b)
        try f.deleteZone(a)
        try f.engine.purgeRecordZone(caller: f.alice, database: f.privateDB, zoneID: c)
        #expect(try f.databaseChanges().changes == [.zoneChanged(d), .zoneChanged(b)])
        try f.createZone("A")
        #expect(try f.databaseChanges().changes == [.zoneChanged(d), .zoneChanged(b), .zoneChanged(a)])
    }

    @Test func nilTokenBatchTokenDoesNotReportZonesRemovedBeforeTheFetchStarted() throws {
        let f = try Fixture()
        for name in ["A", "B", "C", "D"] { try f.createZone(name) }
        try f.deleteZone(f.zone("B"))
        let first = try f.databaseChanges(limit: 1)
        #expect(first.changes == [.zoneChanged(f.zone("A"))])
        #expect(first.moreComing)
        let e = try f.createZone("E")
        try f.deleteZone(f.zone("C"))
        let rest = try f.databaseChanges(since: first.serverChangeToken)
        #expect(rest.changes == [.zoneChanged(f.zone("D")), .zoneChanged(e), .zoneRemoved(f.zone("C"), reason: .deleted)])
    }

    @Test func sharedDatabaseChangesListZonesSharedInChangedAndRemoved() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        let token = try f.currentDatabaseToken(by: f.bob, database: f.sharedDB)
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: a, participants: ["bob"], revoke: false)
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: b, participants: ["bob"], revoke: false)
        try f.save("a1", in: a)
        let first = try f.databaseChanges(since: token, by: f.bob, database: f.sharedDB)
        #expect(first.changes == [.zoneChanged(b), .zoneChanged(a)])
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: b, participants: ["bob"], revoke: true)
        try f.deleteZone(a)
        #expect(try f.databaseChanges(since: first.serverChangeToken, by: f.bob, database: f.sharedDB).changes == [
            .zoneRemoved(b, reason: .deleted), .zoneRemoved(a, reason: .deleted),
        ])
    }

    @Test func publicDatabaseChangeFetchIsRejected() throws {
        let f = try Fixture()
        expect(cloudError { try f.databaseChanges(database: f.db(.public)) }, .invalidArguments, mentioning: ["public database", "changes/database"])
    }

    @Test func nonPositiveResultsLimitIsRejected() throws {
        let f = try Fixture()
        expect(cloudError { try f.databaseChanges(limit: -1) }, .invalidArguments, mentioning: ["resultsLimit"])
    }
}
