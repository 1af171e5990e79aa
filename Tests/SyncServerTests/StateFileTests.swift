import Foundation
import SyncCore
import SyncWire
import SyncServer
import Testing

/// Export, import, reset and checkpoints of the whole server state.
@Suite struct StateFileTests {
    func populated() throws -> (Fixture, RecordZoneID) { try Fixture.withHistory(records: 30) }

    @Test func aRestoredCheckpointAnswersOldTokensExactlyAsTheOriginal() throws {
        let (f, notes) = try populated()
        let zoneToken = try f.zoneChanges(notes, limit: 10).serverChangeToken
        let databaseToken = try f.databaseChanges(limit: 1).serverChangeToken
        let bobToken = try f.databaseChanges(by: f.bob, database: f.sharedDB).serverChangeToken

        let checkpoint = f.engine.checkpointState()
        let copy = try Fixture()
        try copy.engine.importState(checkpoint, keepingHistory: true)

        #expect(try copy.allZoneChanges(notes, since: zoneToken).changes == f.allZoneChanges(notes, since: zoneToken).changes)
        #expect(try copy.databaseChanges(since: databaseToken) == f.databaseChanges(since: databaseToken))
        #expect(try copy.databaseChanges(since: bobToken, by: f.bob, database: f.sharedDB)
            == f.databaseChanges(since: bobToken, by: f.bob, database: f.sharedDB))
        #expect(try copy.zoneChanges(notes).clientChangeTokenData == Data([1, 2, 3]))
        // Both go on making the same choices: the same change tags, tokens and new-zone incarnations.
        for fixture in [f, copy] {
            try fixture.save("after", in: notes, ["n": .int64(1)])
            try fixture.createZone("Later")
        }
        #expect(try copy.lookup("after", in: notes) == f.lookup("after", in: notes))
        #expect(try copy.zoneChanges(f.zone("Later")).serverChangeToken == f.zoneChanges(f.zone("Later")).serverChangeToken)
        #expect(copy.engine.checkpointState() == f.engine.checkpointState())
    }

    @Test func anImportedStateKeepsTheDataButExpiresEveryOldToken() throws {
        let (f, notes) = try populated()
        let token = try f.zoneChanges(notes).serverChangeToken
        let exported = f.engine.exportState()
        #expect(exported.randomSeed == nil)

        let other = try Fixture(configuration: ServerConfiguration(seed: 99))
        try other.engine.importState(exported, keepingHistory: false)
        // Another server signs with another key: the old token is not its own.
        expect(cloudError { try other.zoneChanges(notes, since: token) }, .invalidArguments, mentioning: ["another server"])
        #expect(try other.allZoneChanges(notes).changes.records == f.allZoneChanges(notes).changes.records)
        // Users come with their web auth tokens, so clients of the exporting server can sign in.
        #expect(other.engine.users == f.engine.users)
        // Importing into the same server also expires its own tokens.
        try f.engine.importState(exported, keepingHistory: false)
        expect(cloudError { try f.zoneChanges(notes, since: token) }, .changeTokenExpired, mentioning: ["no token"])
    }

    @Test func exportIsStableAndSurvivesARoundTrip() throws {
        let (f, _) = try populated()
        let first = try WireJSON.encode(f.engine.exportState())
        #expect(try WireJSON.encode(f.engine.exportState()) == first)
        let decoded = try WireJSON.decode(ServerStateFile.self, from: first)
        let copy = try Fixture()
        try copy.engine.importState(decoded, keepingHistory: false)
        var again = copy.engine.exportState()
        again.historyID = decoded.historyID
        #expect(again == decoded)
    }

    @Test func resetEmptiesTheServerKeepsUsersAndExpiresTokens() throws {
        let (f, notes) = try populated()
        let token = try f.databaseChanges().serverChangeToken
        let users = f.engine.users
        f.engine.resetState()
        #expect(f.engine.users == users)
        expect(cloudError { try f.zoneChanges(notes) }, .zoneNotFound)
        expect(cloudError { try f.databaseChanges(since: token) }, .changeTokenExpired)
        #expect(try f.databaseChanges().changes.isEmpty)
    }

    @Test func aBrokenStateFileIsRejectedWithItsProblemAndChangesNothing() throws {
        let (f, notes) = try populated()
        let before = f.engine.exportState()
        var broken = before
        broken.containers[0].users[0].privateZones[0].records[1].sequence = broken.containers[0].users[0].privateZones[0].records[0].sequence
        expect(cloudError { try f.engine.importState(broken, keepingHistory: false) }, .invalidArguments, mentioning: ["sequence", "nothing was changed"])
        var wrongFormat = before
        wrongFormat.format = "something-else"
        expect(cloudError { try f.engine.importState(wrongFormat, keepingHistory: false) }, .invalidArguments, mentioning: ["format"])
        var noSeed = before
        noSeed.randomSeed = nil
        expect(cloudError { try f.engine.importState(noSeed, keepingHistory: true) }, .invalidArguments, mentioning: ["randomSeed"])
        #expect(f.engine.exportState() == before)
        #expect(try f.lookup("r1", in: notes).recordID.recordName == "r1")
    }

    @Test func databasesMadeOnFirstUseGetTheSameTokensWhateverTouchedThemFirst() throws {
        let a = try Fixture()
        let b = try Fixture()
        // b reads bob's and the public database before alice does anything.
        _ = try b.databaseChanges(by: b.bob)
        _ = try b.engine.listRecordZones(caller: b.carol, database: b.db(.public))
        for f in [a, b] {
            let notes = try f.createZone("Notes")
            try f.save("n1", in: notes)
        }
        #expect(try a.currentZoneToken(a.zone("Notes")) == b.currentZoneToken(b.zone("Notes")))
        #expect(try a.currentDatabaseToken() == b.currentDatabaseToken())
        #expect(try a.currentDatabaseToken(by: a.bob, database: a.sharedDB) == b.currentDatabaseToken(by: b.bob, database: b.sharedDB))
    }

    @Test func aParticipantCannotCompactTheOwnersSharedZone() throws {
        let (f, notes) = try populated()
        let ownerToken = try f.zoneChanges(notes).serverChangeToken
        try f.save("more", in: notes)
        let error = cloudError {
            try f.engine.compactHistory(caller: f.bob, database: f.privateDB, scope: .shared, zoneID: notes, keepLast: 0)
        }
        expect(error, .permissionFailure, mentioning: ["owner"])
        #expect(try f.zoneChanges(notes, since: ownerToken).changes.summary == ["more"])
    }
}

@Suite struct ZoneRemovalSubscriptionTests {
    @Test(arguments: ["delete", "purge", "reset"])
    func removingAZoneDeletesItsZoneAndQuerySubscriptionsOnly(_ how: String) async throws {
        let fixture = PushFixture()
        let alice = try fixture.server.connect(user: "alice", deviceID: "phone")
        let notes = zone("Notes")
        let other = zone("Other")
        try await alice.makeZones([notes, other])
        try await alice.subscribe([
            .recordZone(RecordZoneSubscription(subscriptionID: "notes-zone", zoneID: notes)),
            .recordZone(RecordZoneSubscription(subscriptionID: "other-zone", zoneID: other)),
            .query(QuerySubscription(subscriptionID: "notes-query", recordType: "Note", zoneID: notes, options: [.firesOnRecordCreation])),
            .query(QuerySubscription(subscriptionID: "any-query", recordType: "Note", options: [.firesOnRecordCreation])),
            .database(DatabaseSubscription(subscriptionID: "db")),
        ])
        switch how {
        case "delete": _ = try await alice.modifyRecordZones(in: .private, saving: [], deleting: [notes])
        case "purge": try await alice.purgeRecordZone(in: .private, notes)
        default: try await alice.encryptedDataReset()
        }
        let left = try await alice.fetchSubscriptions(in: .private, ids: nil).map { try $0.get().subscriptionID }
        let expected = how == "reset" ? ["any-query", "db"] : ["any-query", "db", "other-zone"]
        #expect(left == expected)
        // A zone made again under the same name starts without the old subscriptions.
        try await alice.makeZones([notes])
        let lookup = try await alice.fetchSubscriptions(in: .private, ids: ["notes-zone"])
        #expect(cloudError(lookup[0])?.code == .unknownItem)
    }
}
