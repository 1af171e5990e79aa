import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct ZoneTests {
    @Test func creatingAnExistingZoneReturnsItAndKeepsItsRecords() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes, ["title": "kept"])
        let dbToken = try f.currentDatabaseToken()

        let results = try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [notes], deleting: [])
        #expect(try results.map { try $0.get().zoneID } == [notes])
        #expect(try f.lookup("n1", in: notes)["title"] == "kept")
        #expect(try f.databaseChanges(since: dbToken).changes.isEmpty, "re-creating an existing zone is not a change")
    }

    @Test func zoneOwnerDefaultsToTheCaller() throws {
        let f = try Fixture()
        let results = try f.engine.modifyRecordZones(
            caller: f.alice, database: f.privateDB, saving: [RecordZoneID(zoneName: "Notes", ownerName: "")], deleting: [])
        #expect(try results[0].get().zoneID == f.zone("Notes"))
        #expect(try f.engine.listRecordZones(caller: f.alice, database: f.privateDB).map(\.zoneID).contains(f.zone("Notes")))
    }

    @Test func deletingAMissingZoneFailsWithZoneNotFound() throws {
        let f = try Fixture()
        let results = try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [], deleting: [f.zone("Nope")])
        expect(cloudError(results[0]), .zoneNotFound, mentioning: ["Nope"])
        #expect(results[0].failureZoneID == f.zone("Nope"))
    }

    @Test func deletingAZoneRemovesItAndItsRecords() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        try f.deleteZone(notes)
        expect(cloudError { try f.lookup("n1", in: notes) }, .zoneNotFound)
        #expect(try !f.engine.listRecordZones(caller: f.alice, database: f.privateDB).map(\.zoneID).contains(notes))
        try f.createZone("Notes")
        #expect(try f.zoneChanges(notes).changes.isEmpty, "a re-created zone starts empty")
    }

    @Test func onlyOneOperationPerZonePerRequest() throws {
        let f = try Fixture()
        let notes = f.zone("Notes")
        expect(
            cloudError { try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [notes], deleting: [notes]) },
            .invalidArguments, mentioning: ["Notes", "one operation per zone"])
        expect(
            cloudError { try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [notes, notes], deleting: []) },
            .invalidArguments, mentioning: ["twice"])
        #expect(try !f.engine.listRecordZones(caller: f.alice, database: f.privateDB).map(\.zoneID).contains(notes), "nothing was applied")
    }

    @Test func zonesAreCreatedOnlyInThePrivateDatabase() throws {
        let f = try Fixture()
        for scope in [DatabaseScope.public, .shared] {
            expect(
                cloudError { try f.engine.modifyRecordZones(caller: f.alice, database: f.db(scope), saving: [f.zone("Z")], deleting: []) },
                .invalidArguments, mentioning: [scope == .public ? "public" : "owner"])
        }
    }

    @Test func badZoneNamesAreInvalidArguments() throws {
        let f = try Fixture()
        for name in ["", "a/b", "_reserved", String(repeating: "z", count: 256)] {
            let results = try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [f.zone(name)], deleting: [])
            expect(cloudError(results[0]), .invalidArguments, mentioning: [name.hasPrefix("_") ? "reserved" : "zone name"])
        }
        let foreign = try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [f.zone("Z", owner: "bob")], deleting: [])
        expect(cloudError(foreign[0]), .permissionFailure, mentioning: ["bob"])
    }

    @Test func defaultZoneCannotBeDeleted() throws {
        let f = try Fixture()
        let results = try f.engine.modifyRecordZones(
            caller: f.alice, database: f.privateDB, saving: [], deleting: [.defaultZone(ownerName: "alice")])
        expect(cloudError(results[0]), .invalidArguments, mentioning: ["default zone"])
    }

    @Test func purgedZoneAnswersUserDeletedZoneUntilCreatedAgain() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let token = try f.currentZoneToken(notes)
        try f.engine.purgeRecordZone(caller: f.alice, database: f.privateDB, zoneID: notes)

        expect(cloudError { try f.lookup("n1", in: notes) }, .userDeletedZone, mentioning: ["purged"])
        expect(cloudError { try f.save("n2", in: notes) }, .userDeletedZone)
        expect(cloudError { try f.zoneChanges(notes, since: token) }, .userDeletedZone)
        let deletion = try f.engine.modifyRecordZones(caller: f.alice, database: f.privateDB, saving: [], deleting: [notes])
        expect(cloudError(deletion[0]), .userDeletedZone)

        try f.createZone("Notes")
        #expect(try f.zoneChanges(notes).changes.isEmpty)
        try f.save("n2", in: notes)
    }

    @Test func encryptedDataResetRemovesEveryPrivateCustomZoneWithThatReason() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        let home = RecordZoneID.defaultZone(ownerName: "alice")
        try f.save("inDefault", in: home)
        try f.save("a1", in: a)
        let bobs = try f.createZone("Bobs", by: f.bob)
        let token = try f.currentDatabaseToken()

        try f.engine.encryptedDataReset(caller: f.alice, database: f.privateDB)

        let changes = try f.databaseChanges(since: token).changes
        #expect(changes == [.zoneRemoved(a, reason: .encryptedDataReset), .zoneRemoved(b, reason: .encryptedDataReset)])
        #expect(try f.engine.listRecordZones(caller: f.alice, database: f.privateDB).map(\.zoneID) == [home])
        expect(cloudError { try f.lookup("a1", in: a) }, .zoneNotFound, mentioning: ["reset", "encrypted"])
        #expect(try f.lookup("inDefault", in: home).recordID.recordName == "inDefault", "the default zone stays")
        #expect(try f.engine.listRecordZones(caller: f.bob, database: f.privateDB).map(\.zoneID).contains(bobs), "other users keep theirs")
    }
}

extension Result where Failure == CloudError {
    var failureZoneID: RecordZoneID? {
        if case .failure(let error) = self { error.zoneID } else { nil }
    }
}
