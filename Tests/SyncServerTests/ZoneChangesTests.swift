import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct ZoneChangesTests {
    @Test func severalZonesInOneRequestAreAnsweredInRequestOrder() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        let c = try f.createZone("C")
        try f.save("a1", in: a)
        try f.save("b1", in: b)
        try f.save("c1", in: c)
        let results = try f.engine.fetchRecordZoneChanges(
            caller: f.alice, database: f.privateDB, [c, a, b].map { ZoneChangesRequest(zoneID: $0) })
        #expect(try results.map { try $0.get().zoneID } == [c, a, b])
        #expect(try results.map { try $0.get().changes.summary } == [["c1"], ["a1"], ["b1"]])
    }

    @Test func eachZoneHasItsOwnTokenAndResultsLimit() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        try f.saveMany(3, prefix: "a", in: a)
        try f.saveMany(3, prefix: "b", in: b)
        let bToken = try f.currentZoneToken(b)
        try f.save("b4", in: b)
        let results = try f.engine.fetchRecordZoneChanges(
            caller: f.alice, database: f.privateDB,
            [ZoneChangesRequest(zoneID: a, resultsLimit: 2), ZoneChangesRequest(zoneID: b, previousServerChangeToken: bToken, resultsLimit: 10)])
        let batchA = try results[0].get()
        let batchB = try results[1].get()
        #expect(batchA.changes.summary == ["a1", "a2"])
        #expect(batchA.moreComing)
        #expect(batchB.changes.summary == ["b4"])
        #expect(!batchB.moreComing)
        #expect(batchA.serverChangeToken != batchB.serverChangeToken)
        #expect(try f.zoneChanges(a, since: batchA.serverChangeToken).changes.summary == ["a3"])
    }

    @Test func resultsLimitCountsSavesAndDeletionsAndResumesRightAfter() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(4, in: notes)
        let token = try f.currentZoneToken(notes)
        try f.delete(["r1", "r3"], in: notes)
        try f.save("r5", in: notes)
        let all = try f.allZoneChanges(notes, since: token, limit: 1)
        #expect(all.changes.summary == ["-r1", "-r3", "r5"])
        #expect(all.batches == 3)
    }

    @Test func resultsLimitAboveTheServerCapIsLoweredToIt() throws {
        let f = try Fixture(configuration: ServerConfiguration(maxResultsLimit: 10))
        let notes = try f.createZone("Notes")
        try f.saveMany(15, in: notes)
        let first = try f.zoneChanges(notes, limit: 1_000)
        #expect(first.changes.count == 10)
        #expect(first.moreComing)
        let unlimited = try f.zoneChanges(notes)
        #expect(unlimited.changes.count == 10, "no limit means the server's cap")
        #expect(try f.zoneChanges(notes, since: first.serverChangeToken, limit: 1_000).changes.count == 5)
    }

    @Test func desiredKeysNilMeansAllEmptyMeansNoneAndAListMeansThose() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes, ["title": "T", "body": "B", "count": 3])
        #expect(try f.zoneChanges(notes, desiredKeys: nil).changes.records[0].fields == ["title": "T", "body": "B", "count": 3])
        let none = try f.zoneChanges(notes, desiredKeys: []).changes.records[0]
        #expect(none.fields.isEmpty)
        #expect(none.recordChangeTag != nil, "system fields still come")
        #expect(try f.zoneChanges(notes, desiredKeys: ["title", "count", "missing"]).changes.records[0].fields == ["title": "T", "count": 3])
        #expect(try f.lookup("n1", in: notes).fields.count == 3, "the stored record keeps every field")
    }

    @Test func eachChangedRecordAppearsOnceInItsLatestVersionOldestChangeFirst() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let token = try f.currentZoneToken(notes)
        try f.save("r1", in: notes, ["v": 1])
        try f.save("r2", in: notes, ["v": 1])
        try f.save("r3", in: notes, ["v": 1])
        try f.save("r1", in: notes, ["v": 2])
        let latest = try f.save("r1", in: notes, ["v": 3])
        try f.save("r2", in: notes, ["v": 2])
        let changes = try f.zoneChanges(notes, since: token).changes
        #expect(changes.summary == ["r3", "r1", "r2"])
        #expect(changes.records[1] == latest)
    }

    @Test func deletionsComeAsRecordIDAndRecordType() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save([f.record("task", in: notes, type: "Task")], in: notes)
        let token = try f.currentZoneToken(notes)
        try f.save("tmp", in: notes)
        try f.delete(["task", "tmp"], in: notes)
        #expect(try f.zoneChanges(notes, since: token).changes == [
            .deleted(RecordID(recordName: "task", zoneID: notes), recordType: "Task"),
            .deleted(RecordID(recordName: "tmp", zoneID: notes), recordType: "Note"),
        ])
    }

    @Test func recordDeletedAndRecreatedAppearsOnceAsChanged() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let token = try f.currentZoneToken(notes)
        try f.delete(["n1"], in: notes)
        let back = try f.save("n1", in: notes, ["again": 1])
        #expect(try f.zoneChanges(notes, since: token).changes == [.changed(back)])
    }

    @Test func nilTokenListsLiveRecordsOnly() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(5, in: notes)
        try f.delete(["r2", "r4"], in: notes)
        let all = try f.allZoneChanges(notes, limit: 2)
        #expect(all.changes.summary == ["r1", "r3", "r5"])
    }

    @Test func perZoneErrorsDoNotStopTheOtherZones() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let purged = try f.createZone("Purged")
        let b = try f.createZone("B")
        try f.save("a1", in: a)
        try f.save("b1", in: b)
        try f.engine.purgeRecordZone(caller: f.alice, database: f.privateDB, zoneID: purged)
        let results = try f.engine.fetchRecordZoneChanges(
            caller: f.alice, database: f.privateDB,
            [
                ZoneChangesRequest(zoneID: a),
                ZoneChangesRequest(zoneID: f.zone("Missing")),
                ZoneChangesRequest(zoneID: purged),
                ZoneChangesRequest(zoneID: b, previousServerChangeToken: ServerChangeToken(rawValue: "garbage")),
                ZoneChangesRequest(zoneID: .defaultZone(ownerName: "alice")),
                ZoneChangesRequest(zoneID: b),
            ])
        #expect(try results[0].get().changes.summary == ["a1"])
        expect(cloudError(results[1]), .zoneNotFound, mentioning: ["Missing"])
        expect(cloudError(results[2]), .userDeletedZone)
        expect(cloudError(results[3]), .invalidArguments, mentioning: ["token"])
        expect(cloudError(results[4]), .invalidArguments)
        #expect(try results[5].get().changes.summary == ["b1"])
        #expect(results.map { $0.zoneIDOfEither } == [a, f.zone("Missing"), purged, b, .defaultZone(ownerName: "alice"), b])
    }

    @Test func defaultZoneChangeFetchIsAClearError() throws {
        let f = try Fixture()
        expect(
            cloudError { try f.zoneChanges(.defaultZone(ownerName: "alice")) }, .invalidArguments,
            mentioning: ["default zone", "does not support change fetching"])
    }

    @Test func publicDatabaseChangeFetchIsAClearError() throws {
        let f = try Fixture()
        expect(
            cloudError { try f.zoneChanges(.defaultZone(ownerName: RecordZoneID.publicOwnerName), database: f.db(.public)) },
            .invalidArguments, mentioning: ["public database", "changes/zone"])
    }

    @Test func ownerNameMayBeLeftToTheServer() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let batch = try f.zoneChanges(RecordZoneID(zoneName: "Notes", ownerName: RecordZoneID.currentUserName))
        #expect(batch.zoneID == notes)
        #expect(batch.changes.records.map(\.recordID) == [RecordID(recordName: "n1", zoneID: notes)])
        #expect(try f.zoneChanges(notes, since: batch.serverChangeToken).changes.isEmpty, "the token works with the full zone ID")
    }
}

extension Result where Success == ZoneChangesBatch, Failure == CloudError {
    var zoneIDOfEither: RecordZoneID? {
        switch self {
        case .success(let batch): batch.zoneID
        case .failure(let error): error.zoneID
        }
    }
}
