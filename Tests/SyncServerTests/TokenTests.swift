import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct TokenTests {
    // MARK: Tokens used in the wrong place

    @Test func databaseTokenIsRejectedByZoneFetchNamingBothKinds() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let dbToken = try f.currentDatabaseToken()
        expect(
            cloudError { try f.zoneChanges(notes, since: dbToken) }, .invalidArguments,
            mentioning: ["database token", "changes/zone", "record-zone token"])
    }

    @Test func zoneTokenIsRejectedByDatabaseFetchNamingBothKinds() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let zoneToken = try f.currentZoneToken(notes)
        expect(
            cloudError { try f.databaseChanges(since: zoneToken) }, .invalidArguments,
            mentioning: ["record-zone token", "changes/database", "database token"])
    }

    @Test func tokenOfAnotherZoneIsRejectedNamingBothZones() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        let aToken = try f.currentZoneToken(a)
        expect(cloudError { try f.zoneChanges(b, since: aToken) }, .invalidArguments, mentioning: ["zone 'A'", "zone 'B'"])
    }

    @Test func tokenOfAnotherUserIsRejectedNamingTheUsers() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: notes, participants: ["bob", "carol"], revoke: false)
        let bobsZoneToken = try f.currentZoneToken(notes, by: f.bob, database: f.sharedDB)
        expect(
            cloudError { try f.zoneChanges(notes, since: bobsZoneToken, by: f.carol, database: f.sharedDB) }, .invalidArguments,
            mentioning: ["another user", "bob", "carol"])
        let bobsDBToken = try f.currentDatabaseToken(by: f.bob)
        expect(cloudError { try f.databaseChanges(since: bobsDBToken) }, .invalidArguments, mentioning: ["another user"])
    }

    @Test func tokenOfAnotherDatabaseScopeIsRejectedNamingBothDatabases() throws {
        let f = try Fixture()
        let privateToken = try f.currentDatabaseToken()
        expect(
            cloudError { try f.databaseChanges(since: privateToken, database: f.sharedDB) }, .invalidArguments,
            mentioning: ["private database", "shared database"])
        let sharedToken = try f.currentDatabaseToken(database: f.sharedDB)
        expect(cloudError { try f.databaseChanges(since: sharedToken) }, .invalidArguments, mentioning: ["shared database", "private database"])
    }

    @Test func tokenOfAnotherContainerOrEnvironmentIsRejectedNamingBoth() throws {
        let f = try Fixture()
        let token = try f.currentDatabaseToken()
        expect(
            cloudError { try f.databaseChanges(since: token, database: f.db(.private, container: "iCloud.other")) }, .invalidArguments,
            mentioning: ["container", f.container, "iCloud.other"])
        expect(
            cloudError { try f.databaseChanges(since: token, database: f.db(.private, environment: .production)) }, .invalidArguments,
            mentioning: ["development", "production"])
    }

    // MARK: Tokens that are not tokens

    @Test func tamperedTokenIsRejectedNamingTheSignature() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(3, in: notes)
        let token = try f.zoneChanges(notes, limit: 1).serverChangeToken
        var characters = Array(token.rawValue)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        expect(
            cloudError { try f.zoneChanges(notes, since: ServerChangeToken(rawValue: String(characters))) }, .invalidArguments,
            mentioning: ["signature", "edited"])
    }

    /// Zone names of three lengths give tokens of every length modulo 3, so
    /// the last character's unused low bits are covered too.
    @Test(arguments: ["N", "No", "Not"])
    func tokenWithAnyOneCharacterChangedIsRejected(zoneName: String) throws {
        let f = try Fixture()
        let notes = try f.createZone(zoneName)
        try f.saveMany(3, in: notes)
        let token = try f.zoneChanges(notes, limit: 1).serverChangeToken
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var random = SeededRandom(seed: 7)
        var characters = Array(token.rawValue)
        for index in characters.indices {
            let original = characters[index]
            for _ in 0..<4 {
                var replacement = original
                while replacement == original { replacement = alphabet[Int(random.next() % UInt64(alphabet.count))] }
                characters[index] = replacement
                let edited = ServerChangeToken(rawValue: String(characters))
                let result = try f.engine.fetchRecordZoneChanges(
                    caller: f.alice, database: f.privateDB, [ZoneChangesRequest(zoneID: notes, previousServerChangeToken: edited)])
                #expect(cloudError(ifFailed: result[0])?.code == .invalidArguments, "position \(index): \(edited.rawValue)")
            }
            characters[index] = original
        }
    }

    @Test func truncatedTokenIsRejectedAsTruncated() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let token = try f.currentZoneToken(notes).rawValue
        for cut in [1, 2, 3, 5, 17, token.count / 2, token.count - 4] {
            let truncated = ServerChangeToken(rawValue: String(token.dropLast(cut)))
            expect(cloudError { try f.zoneChanges(notes, since: truncated) }, .invalidArguments, mentioning: ["truncated"])
        }
    }

    @Test func garbageTokenIsRejectedAsNotAToken() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        for garbage in ["hello", "%%%%", "not a token at all", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "é", "=abc"] {
            let token = ServerChangeToken(rawValue: garbage)
            expect(cloudError { try f.zoneChanges(notes, since: token) }, .invalidArguments, mentioning: ["not a change token"])
            expect(cloudError { try f.databaseChanges(since: token) }, .invalidArguments, mentioning: ["not a change token"])
        }
    }

    @Test func emptyTokenIsRejectedAsEmpty() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let empty = ServerChangeToken(rawValue: "")
        expect(cloudError { try f.zoneChanges(notes, since: empty) }, .invalidArguments, mentioning: ["empty"])
        expect(cloudError { try f.databaseChanges(since: empty) }, .invalidArguments, mentioning: ["empty"])
    }

    @Test func tokenFromAnotherServerKeyIsRejected() throws {
        let f = try Fixture()
        let other = try Fixture(configuration: ServerConfiguration(seed: 99))
        let token = try other.currentDatabaseToken()
        expect(cloudError { try f.databaseChanges(since: token) }, .invalidArguments, mentioning: ["another server"])
    }

    // MARK: Expiry

    @Test func tokenOlderThanTheConfiguredRetentionExpires() throws {
        let f = try Fixture(configuration: ServerConfiguration(retention: 10))
        let notes = try f.createZone("Notes")
        try f.saveMany(5, in: notes)
        let old = try f.currentZoneToken(notes)
        let oldDB = try f.currentDatabaseToken()
        for i in 0..<6 { try f.save("recent\(i)", in: notes) }
        let recent = try f.currentZoneToken(notes)
        #expect(try f.zoneChanges(notes, since: old).changes.count == 6, "6 changes back is inside the horizon")
        for i in 0..<10 { try f.save("later\(i)", in: notes) }
        for i in 0..<11 { try f.createZone("Z\(i)") }
        expect(cloudError { try f.zoneChanges(notes, since: old) }, .changeTokenExpired, mentioning: ["retention"])
        expect(cloudError { try f.databaseChanges(since: oldDB) }, .changeTokenExpired, mentioning: ["retention"])
        #expect(try f.zoneChanges(notes, since: recent).changes.count == 10)
    }

    @Test func compactHistoryExpiresTokensBeforeTheNewHorizon() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let old = try f.currentZoneToken(notes)
        let oldDB = try f.currentDatabaseToken()
        try f.saveMany(5, in: notes)
        try f.delete(["r1"], in: notes)
        let recent = try f.currentZoneToken(notes)
        try f.save("r6", in: notes)
        try f.engine.compactHistory(caller: f.alice, database: f.privateDB, scope: .private, zoneID: nil, keepLast: 1)
        expect(cloudError { try f.zoneChanges(notes, since: old) }, .changeTokenExpired, mentioning: ["retention", "no token"])
        expect(cloudError { try f.databaseChanges(since: oldDB) }, .changeTokenExpired)
        #expect(try f.zoneChanges(notes, since: recent).changes.summary == ["r6"])
        #expect(try f.allZoneChanges(notes).changes.summary == ["r2", "r3", "r4", "r5", "r6"], "a fresh fetch still works")
    }

    @Test func compactEverythingExpiresEveryOlderToken() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let bobs = try f.createZone("Bobs", by: f.bob)
        let aliceOld = try f.currentZoneToken(notes)
        let bobOld = try f.currentZoneToken(bobs, by: f.bob)
        try f.save("n1", in: notes)
        try f.save("b1", in: bobs, by: f.bob)
        try f.delete(["b1"], in: bobs, by: f.bob)
        f.engine.compactEverything(keepLast: 0)
        expect(cloudError { try f.zoneChanges(notes, since: aliceOld) }, .changeTokenExpired)
        expect(cloudError { try f.zoneChanges(bobs, since: bobOld, by: f.bob) }, .changeTokenExpired)
        let now = try f.currentZoneToken(notes)
        #expect(try f.zoneChanges(notes, since: now).changes.isEmpty)
    }

    @Test func tokenOfADeletedAndRecreatedZoneExpires() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(3, in: notes)
        let old = try f.currentZoneToken(notes)
        try f.deleteZone(notes)
        try f.createZone("Notes")
        try f.saveMany(10, in: notes)
        expect(cloudError { try f.zoneChanges(notes, since: old) }, .changeTokenExpired, mentioning: ["deleted and created again"])
    }

    @Test func tokenFromADifferentServerHistoryExpires() throws {
        // Same seed, so the same signing key, but the histories differ.
        let first = try Fixture()
        let notes = try first.createZone("Notes")
        try first.saveMany(5, in: notes)
        let token = try first.currentZoneToken(notes)

        let diverged = try Fixture()
        try diverged.createZone("Other")
        try diverged.createZone("Notes")
        try diverged.saveMany(5, in: notes)
        expect(cloudError { try diverged.zoneChanges(notes, since: token) }, .changeTokenExpired, mentioning: ["history"])

        let behind = try Fixture()
        try behind.createZone("Notes")
        try behind.saveMany(2, in: notes)
        expect(cloudError { try behind.zoneChanges(notes, since: token) }, .changeTokenExpired, mentioning: ["history"])
    }

    // MARK: Tokens issued mid-way through a first fetch

    @Test func batchTokenFromANilTokenFetchResumesAcrossNewWrites() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(6, in: notes)
        let first = try f.zoneChanges(notes, limit: 2)
        #expect(first.changes.summary == ["r1", "r2"])
        #expect(first.moreComing)
        try f.save("r7", in: notes)
        try f.save("r2", in: notes, ["n": 22])
        try f.delete(["r4"], in: notes)
        let rest = try f.allZoneChanges(notes, since: first.serverChangeToken, limit: 2)
        #expect(rest.changes.summary == ["r3", "r5", "r6", "r7", "r2", "-r4"])
        #expect(rest.changes.records.last?["n"] == 22)
        try f.save("r8", in: notes)
        #expect(try f.zoneChanges(notes, since: rest.token).changes.summary == ["r8"])
    }

    @Test func batchTokenFromANilTokenFetchDoesNotReportRecordsDeletedBeforeTheFetch() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(6, in: notes)
        try f.delete(["r3", "r6"], in: notes)
        let first = try f.zoneChanges(notes, limit: 2)
        #expect(first.changes.summary == ["r1", "r2"])
        try f.save("r9", in: notes)
        let rest = try f.allZoneChanges(notes, since: first.serverChangeToken, limit: 1)
        #expect(rest.changes.summary == ["r4", "r5", "r9"])
    }

    @Test func batchTokenFromANilTokenFetchSurvivesCompactionOfWhatItSkips() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.saveMany(6, in: notes)
        try f.delete(["r6"], in: notes)
        let first = try f.zoneChanges(notes, limit: 2)
        try f.engine.compactHistory(caller: f.alice, database: f.privateDB, scope: .private, zoneID: notes, keepLast: 0)
        #expect(try f.allZoneChanges(notes, since: first.serverChangeToken).changes.summary == ["r3", "r4", "r5"])
        try f.save("r7", in: notes)
        try f.delete(["r7"], in: notes)
        try f.engine.compactHistory(caller: f.alice, database: f.privateDB, scope: .private, zoneID: notes, keepLast: 0)
        expect(cloudError { try f.zoneChanges(notes, since: first.serverChangeToken) }, .changeTokenExpired)
    }
}
