import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct SharingTests {
    func share(_ f: Fixture, _ zoneID: RecordZoneID, with users: [String], revoke: Bool = false) throws {
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: zoneID, participants: users, revoke: revoke)
    }

    @Test func sharedZoneAppearsInTheParticipantsSharedDatabase() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let bobToken = try f.currentDatabaseToken(by: f.bob, database: f.sharedDB)
        try share(f, notes, with: ["bob"])

        let changes = try f.databaseChanges(since: bobToken, by: f.bob, database: f.sharedDB)
        #expect(changes.changes == [.zoneChanged(notes)])
        #expect(try f.engine.listRecordZones(caller: f.bob, database: f.sharedDB).map(\.zoneID) == [notes])
        #expect(try f.engine.listRecordZones(caller: f.carol, database: f.sharedDB).isEmpty, "only participants see it")
        #expect(try f.databaseChanges(by: f.carol, database: f.sharedDB).changes.isEmpty)
    }

    @Test func participantReadsAndWritesAndBothSeeEachOthersChanges() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("fromAlice1", in: notes, ["v": 1])
        try share(f, notes, with: ["bob"])

        let bobFirst = try f.allZoneChanges(notes, by: f.bob, database: f.sharedDB)
        #expect(bobFirst.changes.summary == ["fromAlice1"])
        let aliceToken = try f.currentZoneToken(notes)
        let aliceDBToken = try f.currentDatabaseToken()

        let bobsSave = try f.save("fromBob", in: notes, ["v": 2], by: f.bob, database: f.sharedDB)
        #expect(bobsSave.modified?.userRecordName == "bob")
        let aliceSees = try f.zoneChanges(notes, since: aliceToken)
        #expect(aliceSees.changes == [.changed(bobsSave)])
        #expect(try f.databaseChanges(since: aliceDBToken).changes == [.zoneChanged(notes)], "the owner's database changes too")

        try f.save("fromAlice2", in: notes)
        try f.delete(["fromBob"], in: notes)
        let bobSees = try f.zoneChanges(notes, since: bobFirst.token, by: f.bob, database: f.sharedDB)
        #expect(bobSees.changes.summary == ["fromAlice2", "-fromBob"])
        #expect(try f.lookup("fromAlice2", in: notes, by: f.bob, database: f.sharedDB).recordID.zoneID == notes)
    }

    @Test func ownerWritesShowInTheParticipantsDatabaseChanges() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try share(f, notes, with: ["bob"])
        let bobToken = try f.currentDatabaseToken(by: f.bob, database: f.sharedDB)
        try f.save("n1", in: notes)
        #expect(try f.databaseChanges(since: bobToken, by: f.bob, database: f.sharedDB).changes == [.zoneChanged(notes)])
    }

    @Test func revokingReportsTheZoneDeletedInTheParticipantsSharedDatabase() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        try share(f, notes, with: ["bob", "carol"])
        let bobToken = try f.currentDatabaseToken(by: f.bob, database: f.sharedDB)
        let carolToken = try f.currentDatabaseToken(by: f.carol, database: f.sharedDB)
        try share(f, notes, with: ["bob"], revoke: true)

        #expect(try f.databaseChanges(since: bobToken, by: f.bob, database: f.sharedDB).changes == [.zoneRemoved(notes, reason: .deleted)])
        #expect(try f.databaseChanges(since: carolToken, by: f.carol, database: f.sharedDB).changes.isEmpty)
        expect(cloudError { try f.zoneChanges(notes, by: f.bob, database: f.sharedDB) }, .zoneNotFound, mentioning: ["shared with you"])
        expect(cloudError { try f.save("n2", in: notes, by: f.bob, database: f.sharedDB) }, .zoneNotFound)
        #expect(try f.engine.listRecordZones(caller: f.bob, database: f.sharedDB).isEmpty)
        #expect(try f.databaseChanges(by: f.bob, database: f.sharedDB).changes.isEmpty, "a fresh fetch does not list it")
    }

    @Test func deletingASharedZoneReportsItDeletedToParticipants() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try share(f, notes, with: ["bob"])
        let bobToken = try f.currentDatabaseToken(by: f.bob, database: f.sharedDB)
        try f.engine.purgeRecordZone(caller: f.alice, database: f.privateDB, zoneID: notes)
        #expect(try f.databaseChanges(since: bobToken, by: f.bob, database: f.sharedDB).changes == [.zoneRemoved(notes, reason: .deleted)])
    }

    @Test func onlyTheOwnerMayShare() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try share(f, notes, with: ["bob"])
        for database in [f.privateDB, f.sharedDB] {
            expect(
                cloudError {
                    try f.engine.shareRecordZone(caller: f.bob, database: database, zoneID: notes, participants: ["carol"], revoke: false)
                },
                .permissionFailure, mentioning: ["owner"])
        }
        expect(
            cloudError { try f.engine.shareRecordZone(caller: f.bob, database: f.sharedDB, zoneID: notes, participants: ["bob"], revoke: true) },
            .permissionFailure)
        #expect(try f.engine.listRecordZones(caller: f.carol, database: f.sharedDB).isEmpty)
        #expect(try f.engine.listRecordZones(caller: f.bob, database: f.sharedDB).map(\.zoneID) == [notes])
    }

    @Test func sharingWithAnUnknownUserOrOneselfIsRejected() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        expect(cloudError { try share(f, notes, with: ["mallory"]) }, .invalidArguments, mentioning: ["mallory"])
        expect(cloudError { try share(f, notes, with: ["alice"]) }, .invalidArguments, mentioning: ["yourself"])
    }

    @Test func ownZoneIsNotReachableThroughTheSharedDatabase() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        expect(cloudError { try f.zoneChanges(notes, database: f.sharedDB) }, .invalidArguments, mentioning: ["your own"])
        expect(cloudError { try f.zoneChanges(notes, by: f.bob) }, .permissionFailure, mentioning: ["belongs to alice"])
    }
}
