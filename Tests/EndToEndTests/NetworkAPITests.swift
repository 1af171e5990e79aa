import Foundation
import Testing

/// The built `syncscope serve`, driven over HTTP as the spec describes.
@Suite struct NetworkAPITests {
    @Test func zonesRecordsAndChangesEndpointsAnswerAsTheSpecSays() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        // Creating an existing zone is not an error.
        try await server.createZone("Notes")
        let list = try await server.call(server.db("private", "zones/list"))
        let names = list.list("zones").compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String }
        #expect(names == ["Notes", "_defaultZone"])
        #expect(list.list("zones").first?["syncToken"] is String)
        let lookup = try await server.call(server.db("private", "zones/lookup"), ["zones": [["zoneID": ["zoneName": "Nope"]]]])
        #expect(lookup.list("zones").first?["serverErrorCode"] as? String == "ZONE_NOT_FOUND")

        let created = try await server.call(server.db("private", "records/modify"), [
            "zoneID": ["zoneName": "Notes"],
            "operations": [["operationType": "create", "record": ["recordName": "n1", "recordType": "Note", "fields": ["title": ["value": "One"]]]]],
        ])
        let n1 = try #require(created.list("records").first)
        let tag = try #require(n1["recordChangeTag"] as? String)
        #expect((n1["created"] as? [String: Any])?["userRecordName"] as? String == "alice")
        // update with a stale tag: CONFLICT carrying the server's record.
        let stale = try await server.call(server.db("private", "records/modify"), [
            "zoneID": ["zoneName": "Notes"],
            "operations": [["operationType": "update", "record": ["recordName": "n1", "recordChangeTag": tag + "x", "fields": ["title": ["value": "Two"]]]]],
        ])
        let conflict = try #require(stale.list("records").first)
        #expect(conflict["serverErrorCode"] as? String == "CONFLICT")
        #expect((conflict["serverRecord"] as? [String: Any])?["recordChangeTag"] as? String == tag)
        let updated = try await server.call(server.db("private", "records/modify"), [
            "zoneID": ["zoneName": "Notes"],
            "operations": [["operationType": "update", "record": ["recordName": "n1", "recordChangeTag": tag, "fields": ["title": ["value": "Two"]]]]],
        ])
        #expect(updated.list("records").first?["recordChangeTag"] as? String != tag)

        let found = try await server.call(server.db("private", "records/lookup"), ["zoneID": ["zoneName": "Notes"], "records": [["recordName": "n1"], ["recordName": "zz"]]])
        #expect(((found.list("records").first?["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == "Two")
        #expect(found.list("records").last?["serverErrorCode"] as? String == "NOT_FOUND")

        try await server.save(["n2", "n3"], in: "Notes")
        let first = try await server.zoneChanges("Notes", limit: 2)
        #expect(first.names == ["n1", "n2"] && first.more)
        try await server.call(server.db("private", "records/modify"), ["zoneID": ["zoneName": "Notes"], "operations": [["operationType": "forceDelete", "record": ["recordName": "n1"]]]])
        let rest = try await server.zoneChanges("Notes", since: first.token)
        #expect(rest.names == ["n3"] && rest.deleted == ["n1"] && !rest.more)

        let database = try await server.call(server.db("private", "changes/database"), [String: Any]())
        #expect(database.list("zones").count == 1)
        #expect(database["moreComing"] as? Bool == false)
        let again = try await server.call(server.db("private", "changes/database"), ["syncToken": try #require(database["syncToken"] as? String)])
        #expect(again.list("zones").isEmpty)
        // The log has one line per request, with user, status and tokens.
        #expect(server.log.contains("POST \(server.db("private", "changes/zone")) user=alice device=- token none → …"))
    }

    @Test func badInputGetsA4xxThatNamesTheProblemAndTheServerKeepsServing() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let path = server.db("private", "records/modify")

        let notJSON = try await server.call(path, rawBody: Data("{not json".utf8))
        #expect(notJSON.status == 400 && notJSON.errorCode == "BAD_REQUEST")
        #expect(notJSON.reason.contains("not JSON"))

        let wrongType = try await server.call(path, ["zoneID": ["zoneName": "Notes"], "operations": "lots"])
        #expect(wrongType.status == 400 && wrongType.reason.contains("'operations' should be a list"), "\(wrongType.reason)")

        let unknown = try await server.call(path, ["zoneID": ["zoneName": "Notes"], "operations": [["operationType": "upsert", "record": ["recordName": "a"]]]])
        #expect(unknown.status == 400 && unknown.reason.contains("'upsert'"))

        let badField = try await server.call(path, ["zoneID": ["zoneName": "Notes"], "operations": [["operationType": "create", "record": ["recordName": "a", "recordType": "Note", "fields": ["n": ["value": "x", "type": "INT64"]]]]]])
        #expect(badField.status == 400 && badField.reason.contains("'n'"), "\(badField.reason)")

        let tooMany = (0..<401).map { ["operationType": "forceReplace", "record": ["recordName": "r\($0)", "recordType": "Note"]] }
        let limit = try await server.call(path, ["zoneID": ["zoneName": "Notes"], "operations": tooMany])
        #expect(limit.status == 400 && limit.errorCode == "BAD_REQUEST" && limit.reason.contains("401"))

        let big = Data(("{\"pad\":\"" + String(repeating: "x", count: 2 * 1024 * 1024 + 10) + "\"}").utf8)
        let tooBig = try await server.call(path, rawBody: big)
        #expect(tooBig.status == 413 && tooBig.reason.contains("2 MB"), "\(tooBig.status) \(tooBig.reason)")

        let noSuchOperation = try await server.call(server.db("private", "records/upsert"), [String: Any]())
        #expect(noSuchOperation.status == 404 && noSuchOperation.errorCode == "NOT_FOUND")
        let badEnvironment = try await server.call("/database/1/\(ServerProcess.container)/staging/private/zones/list")
        #expect(badEnvironment.status == 400 && badEnvironment.reason.contains("staging"))
        let badDatabase = try await server.call("/database/1/\(ServerProcess.container)/development/secret/zones/list")
        #expect(badDatabase.status == 400 && badDatabase.reason.contains("secret"))

        // An atomic request with one bad item applies nothing.
        try await server.save(["kept"], in: "Notes")
        let atomic = try await server.call(path, ["zoneID": ["zoneName": "Notes"], "operations": [
            ["operationType": "create", "record": ["recordName": "new", "recordType": "Note"]],
            ["operationType": "create", "record": ["recordName": "kept", "recordType": "Note"]],
        ]])
        #expect(atomic.list("records").compactMap { $0["serverErrorCode"] as? String } == ["ATOMIC_ERROR", "EXISTS"])

        // Nothing above was applied, and the server still answers.
        let changes = try await server.zoneChanges("Notes")
        #expect(changes.names == ["kept"])
    }

    @Test func aliceCannotReadBobsPrivateDatabaseWhateverSheSends() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Diary", user: "bob")
        try await server.save(["secret"], in: "Diary", user: "bob")

        let noToken = try await server.call(server.db("private", "zones/list"), user: nil)
        #expect(noToken.status == 421 && noToken.errorCode == "AUTHENTICATION_REQUIRED")
        let badToken = try await server.call(server.db("private", "zones/list"), user: nil, token: "not-a-token")
        #expect(badToken.status == 401 && badToken.errorCode == "AUTHENTICATION_FAILED")

        let bobsZone = ["zoneName": "Diary", "ownerRecordName": "bob"]
        let lookup = try await server.call(server.db("private", "records/lookup"), ["zoneID": bobsZone, "records": [["recordName": "secret"]]])
        #expect(lookup.status == 403 && lookup.errorCode == "ACCESS_DENIED")
        let changes = try await server.call(server.db("private", "changes/zone"), ["zones": [["zoneID": bobsZone]]])
        #expect(changes.list("zones").first?["serverErrorCode"] as? String == "ACCESS_DENIED")
        let shared = try await server.call(server.db("shared", "changes/zone"), ["zones": [["zoneID": bobsZone]]])
        #expect(shared.list("zones").first?["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
        let write = try await server.save(["mine"], in: "Diary", owner: "bob")
        #expect(write.status == 403)
        let listing = try await server.call(server.db("private", "zones/list"))
        #expect(!String(decoding: listing.data, as: UTF8.self).contains("Diary"))
        // Bob's token from Alice is Bob's, not a way into his data as Alice: it is just Bob.
        let bobsChanges = try await server.zoneChanges("Diary", user: "bob")
        let asAlice = try await server.call(server.db("private", "changes/zone"), ["zones": [["zoneID": bobsZone, "syncToken": bobsChanges.token]]])
        #expect(asAlice.list("zones").first?["serverErrorCode"] as? String == "ACCESS_DENIED")

        // Public: reads need no token, writes do.
        let publicRead = try await server.call(server.db("public", "records/lookup"), ["records": [["recordName": "x"]]], user: nil)
        #expect(publicRead.status == 200)
        let publicWrite = try await server.call(server.db("public", "records/modify"), ["operations": [["operationType": "forceReplace", "record": ["recordName": "x", "recordType": "Note"]]]], user: nil)
        #expect(publicWrite.status == 421)
    }

    @Test func tokensAreCheckedAndExpireAfterCompaction() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        try await server.save(["a", "b"], in: "Notes")
        let token = try await server.zoneChanges("Notes").token

        let tampered = try await server.zoneChanges("Notes", since: String(token.dropLast(3)) + "AAA")
        #expect(tampered.error?["serverErrorCode"] as? String == "BAD_REQUEST")
        let database = try await server.call(server.db("private", "changes/database"), ["syncToken": token])
        #expect(database.status == 400 && database.reason.contains("needs a database token"))

        try await server.save(["c", "d"], in: "Notes")
        try await server.call(server.admin("compact"), ["database": "private", "zoneID": ["zoneName": "Notes"], "keepLast": 0])
        let expired = try await server.zoneChanges("Notes", since: token)
        #expect(expired.error?["serverErrorCode"] as? String == "CHANGE_TOKEN_EXPIRED")
        let whole = try await server.call(server.db("private", "changes/database"), ["syncToken": "garbage!!"])
        #expect(whole.status == 400)
    }

    @Test func subscriptionsAndSharingWorkOverHTTP() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Trip")
        let path = server.db("private", "subscriptions/modify")
        let saved = try await server.call(path, ["operations": [
            ["operationType": "create", "subscription": ["subscriptionID": "db", "subscriptionType": "database"]],
            ["operationType": "create", "subscription": ["subscriptionID": "zone", "subscriptionType": "zone", "zoneID": ["zoneName": "Trip"]]],
            ["operationType": "create", "subscription": [
                "subscriptionID": "big", "subscriptionType": "query",
                "query": ["recordType": "Note", "filterBy": [["comparator": "GREATER_THAN", "fieldName": "stars", "fieldValue": ["value": 3]]]],
                "firesOn": ["create", "update"],
            ]],
        ]])
        #expect(saved.list("subscriptions").compactMap { $0["subscriptionID"] as? String } == ["db", "zone", "big"])
        let list = try await server.call(server.db("private", "subscriptions/list"))
        #expect(list.list("subscriptions").compactMap { $0["subscriptionID"] as? String } == ["big", "db", "zone"])
        let misplaced = try await server.call(server.db("shared", "subscriptions/modify"), ["operations": [
            ["operationType": "create", "subscription": ["subscriptionID": "z", "subscriptionType": "zone", "zoneID": ["zoneName": "Trip"]]],
        ]])
        #expect((misplaced.list("subscriptions").first?["reason"] as? String)?.contains("private database") == true)
        let deleted = try await server.call(path, ["operations": [["operationType": "delete", "subscription": ["subscriptionID": "db"]]]])
        #expect(deleted.list("subscriptions").first?["deleted"] as? Bool == true)
        let lookup = try await server.call(server.db("private", "subscriptions/lookup"), ["subscriptions": [["subscriptionID": "db"]]])
        #expect(lookup.list("subscriptions").first?["serverErrorCode"] as? String == "NOT_FOUND")

        let share = try await server.call(server.db("private", "zones/share"), ["zoneID": ["zoneName": "Trip"], "operationType": "share", "participants": ["bob"]])
        #expect(share["participants"] as? [String] == ["bob"])
        let saveAsBob = try await server.save(["from-bob"], in: "Trip", user: "bob", database: "shared", owner: "alice")
        #expect(saveAsBob.status == 200, "\(saveAsBob.json)")
        #expect(try await server.zoneChanges("Trip").names == ["from-bob"])
        // Deleting the zone deletes its zone subscription.
        try await server.call(server.db("private", "zones/modify"), ["operations": [["operationType": "delete", "zone": ["zoneID": ["zoneName": "Trip"]]]]])
        let left = try await server.call(server.db("private", "subscriptions/list"))
        #expect(left.list("subscriptions").compactMap { $0["subscriptionID"] as? String } == ["big"])
    }

    @Test func adminExportImportResetPurgeAndEncryptedDataReset() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        try await server.createZone("Old")
        try await server.save(["a", "b"], in: "Notes")
        let token = try await server.zoneChanges("Notes").token
        let exported = try await server.call(server.admin("export"), [String: Any](), token: server.adminToken)
        #expect(exported["format"] as? String == "syncscope-server-state")
        // No web auth token leaves the server in an export.
        for token in server.tokens.values { #expect(!String(decoding: exported.data, as: UTF8.self).contains(token)) }

        try await server.call(server.admin("reset"), [String: Any](), token: server.adminToken)
        #expect(try await server.zoneChanges("Notes").error?["serverErrorCode"] as? String == "ZONE_NOT_FOUND")

        let imported = try await server.call(server.admin("import"), rawBody: exported.data, token: server.adminToken)
        #expect(imported.status == 200, "\(imported.json)")
        #expect(try await server.zoneChanges("Notes").names == ["a", "b"])
        #expect(try await server.zoneChanges("Notes", since: token).error?["serverErrorCode"] as? String == "CHANGE_TOKEN_EXPIRED")
        // The users keep their own web auth tokens through the import.
        #expect(try await server.call(server.db("private", "zones/list"), user: "bob").status == 200)
        let badImport = try await server.call(server.admin("import"), ["format": "nope"], token: server.adminToken)
        #expect(badImport.status == 400)
        #expect(try await server.zoneChanges("Notes").names == ["a", "b"])

        let dbToken = try #require(try await server.call(server.db("private", "changes/database"), [String: Any]())["syncToken"] as? String)
        try await server.call(server.admin("purgeZone"), ["database": "private", "zoneID": ["zoneName": "Old"]])
        try await server.call(server.admin("encryptedDataReset"), [String: Any]())
        let removed = try await server.call(server.db("private", "changes/database"), ["syncToken": dbToken])
        let reasons = removed.list("zones").map { "\(($0["zoneID"] as? [String: Any])?["zoneName"] ?? "")=\($0["reason"] ?? "")" }
        #expect(reasons == ["Old=purged", "Notes=encryptedDataReset"])
    }

    @Test func aStateFileGivenAtStartUpSeedsTheServer() async throws {
        let first = try ServerProcess()
        defer { first.stop(); first.removeData() }
        try await first.createZone("Seeded")
        try await first.save(["s1"], in: "Seeded")
        let file = first.dataDirectory.appendingPathComponent("seed.json")
        try await first.call(first.admin("export"), [String: Any](), token: first.adminToken).data.write(to: file)

        let second = try ServerProcess(arguments: ["--import", file.path])
        defer { second.stop(); second.removeData() }
        // The same users, with tokens of the second server's own (an export carries none).
        #expect(Set(second.tokens.keys) == Set(first.tokens.keys))
        #expect(try await second.zoneChanges("Seeded").names == ["s1"])
    }
}
