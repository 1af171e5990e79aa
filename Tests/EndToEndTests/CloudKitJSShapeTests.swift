import Foundation
import SyncTestSupport
import Testing

/// What Apple's CloudKit JS reads, spoken byte for byte to the built
/// `syncscope serve` with a bare HTTP client: the web courier's answers (one
/// notification per poll in Apple's push form), error bodies, `records/changes`
/// paging and the contacts lookup by GET.
@Suite struct CloudKitJSShapeTests {
    static let container = ServerProcess.container

    func request(
        _ server: ServerProcess, _ method: String, _ path: String, _ body: String? = nil, token: String? = nil, user: String? = "alice",
        timeout: Double = 30
    ) async throws -> RawHTTP.Answer {
        var headers: [(String, String)] = []
        if let token = token ?? user.flatMap({ server.tokens[$0] }) { headers.append(("Authorization", "Bearer \(token)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try await RawHTTP(port: server.port).exchange(
            RawHTTP.request(method, path, headers: headers, body: body.map { Data($0.utf8) }), timeout: timeout)
    }

    func db(_ operation: String, _ database: String = "private") -> String {
        "/database/1/\(Self.container)/development/\(database)/\(operation)"
    }

    /// The answer's body as one JSON object, or a recorded failure.
    func object(_ answer: RawHTTP.Answer) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            Issue.record("not one JSON object: \(answer.text)")
            return [:]
        }
        return object
    }

    @Test func theWebCourierAnswersOneNotificationPerPollInApplesPushForm() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await request(server, "POST", db("zones/modify"), zone).status == 200)
        // A database, a zone and a query subscription: one save fires all three.
        let subscriptions = #"""
            {"operations":[
             {"operationType":"create","subscription":{"subscriptionID":"db","subscriptionType":"database"}},
             {"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}},
             {"operationType":"create","subscription":{"subscriptionID":"new-notes","subscriptionType":"query",
              "query":{"recordType":"Note"},"firesOn":["create"],"zoneID":{"zoneName":"Notes"},
              "notificationInfo":{"additionalFields":["title"]}}}]}
            """#
        let saved = try await request(server, "POST", db("subscriptions/modify"), subscriptions)
        #expect(saved.status == 200, "\(saved.text)")
        // CloudKit JS makes a token and polls its webcourierURL without tokens/register.
        let created = object(try await request(server, "POST", "/device/1/\(Self.container)/development/tokens/create", #"{"apnsEnvironment":"development"}"#))
        let courier = try #require(created["webcourierURL"] as? String)
        let path = try #require(URLComponents(string: courier)?.path)
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let record = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"Hi"}}}}]}"#
        #expect(try await request(server, "POST", db("records/modify"), record).status == 200)

        // Three waiting: three polls, each one {aps, ck} object; nothing more after.
        var kinds: [String: [String: Any]] = [:]
        var ids: Set<String> = []
        for _ in 0..<3 {
            let answer = try await request(server, "GET", path + "?timeout=20", timeout: 40)
            #expect(answer.status == 200)
            let payload = object(answer)
            #expect(Set(payload.keys) == ["aps", "ck", "syncscope"], "\(answer.text)")
            #expect(payload["notifications"] == nil)
            let ck = try #require(payload["ck"] as? [String: Any])
            #expect(ck["cid"] as? String == Self.container)
            #expect(ck["ckuserid"] as? String == "alice")
            let nid = try #require(ck["nid"] as? String)
            ids.insert(nid)
            let kind = try #require(["fet", "met", "qry"].first { ck[$0] != nil }, "\(answer.text)")
            #expect(["fet", "met", "qry"].filter { ck[$0] != nil }.count == 1)
            kinds[kind] = ck[kind] as? [String: Any]
            // Ours, under our own key: when the server queued it, for the device's latency.
            let ours = try #require(payload["syncscope"] as? [String: Any])
            let queuedAt = try #require(ours["queuedAt"] as? Int64)
            #expect(queuedAt >= before - 1000 && queuedAt <= Int64(Date().timeIntervalSince1970 * 1000))
            #expect(ours["coalescedCount"] as? Int == 1 && ours["isPruned"] as? Bool == false)
        }
        #expect(ids.count == 3, "each poll gets the next notification")
        let fet = try #require(kinds["fet"])
        #expect(fet["zid"] as? String == "Notes" && fet["zoid"] as? String == "alice" && fet["sid"] as? String == "notes" && fet["dbs"] as? Int == 2)
        let met = try #require(kinds["met"])
        #expect(met["sid"] as? String == "db" && met["dbs"] as? Int == 2)
        let qry = try #require(kinds["qry"])
        #expect(qry["sid"] as? String == "new-notes" && qry["rid"] as? String == "n1" && qry["fo"] as? Int == 1)
        #expect(qry["zid"] as? String == "Notes" && qry["zoid"] as? String == "alice" && qry["dbs"] as? Int == 2)
        #expect((qry["af"] as? [String: Any])?["title"] as? String == "Hi")

        // Time up with nothing waiting: 200 and an empty body, as Apple's courier answers.
        let idle = try await request(server, "GET", path + "?timeout=0.2")
        #expect(idle.status == 200 && idle.body.isEmpty, "\(idle.text)")
        // Another user cannot poll this channel.
        #expect(try await request(server, "GET", path + "?timeout=0", user: "bob").status == 404)
    }

    @Test func aNotificationStaysUntilAcknowledgedAndAnUnwrittenOneComesAgainWithItsID() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await request(server, "POST", db("zones/modify"), zone).status == 200)
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await request(server, "POST", db("subscriptions/modify"), subscribe).status == 200)
        let created = object(try await request(server, "POST", "/device/1/\(Self.container)/development/tokens/create", "{}"))
        let courier = try #require(created["webcourierURL"] as? String)
        let path = try #require(URLComponents(string: courier)?.path)
        for name in ["a", "b"] {
            let record = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#
            #expect(try await request(server, "POST", db("records/modify"), record).status == 200)
        }
        func nid(_ answer: RawHTTP.Answer) -> String? { (object(answer)["ck"] as? [String: Any])?["nid"] as? String }
        // Two waiting (one zone, but the first was delivered before the second was made).
        let firstAnswer = try await request(server, "GET", path + "?timeout=20&lastNotificationID=", timeout: 40)
        let first = try #require(nid(firstAnswer))
        // Naming nothing acknowledges nothing: the same one again, same nid.
        let again = try await request(server, "GET", path + "?timeout=20&lastNotificationID=", timeout: 40)
        #expect(nid(again) == first)
        // Naming it: the next one.
        let secondAnswer = try await request(server, "GET", path + "?timeout=20&lastNotificationID=\(first)", timeout: 40)
        let second = try #require(nid(secondAnswer))
        #expect(second != first)
        // Without the parameter, what was written whole is acknowledged by the next poll.
        let empty = try await request(server, "GET", path + "?timeout=0&lastNotificationID=\(second)")
        #expect(empty.status == 200 && empty.body.isEmpty, "\(empty.text)")
    }

    @Test func errorBodiesRecordsChangesPagingAndTheContactsLookupByGet() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await request(server, "POST", db("zones/modify"), zone).status == 200)
        let records = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}},{"operationType":"create","record":{"recordName":"n2","recordType":"Note"}},{"operationType":"create","record":{"recordName":"n3","recordType":"Note"}}]}"#
        #expect(try await request(server, "POST", db("records/modify"), records).status == 200)

        // Error bodies: Apple's keys only (ours under syncscopeErrorCode), never ckErrorCode.
        let apples: Set<String> = ["serverErrorCode", "reason", "uuid", "retryAfter", "recordName", "zoneID", "subscriptionID", "redirectURL"]
        let signedOut = try await request(server, "POST", db("records/modify"), #"{"operations":[]}"#, user: nil)
        #expect(signedOut.status == 421 && object(signedOut)["serverErrorCode"] as? String == "AUTHENTICATION_REQUIRED", "\(signedOut.text)")
        let missingZone = try await request(server, "POST", db("records/lookup"), #"{"zoneID":{"zoneName":"Nope"},"records":[{"recordName":"x"}]}"#)
        #expect(missingZone.status == 404 && object(missingZone)["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
        let badJSON = try await request(server, "POST", db("records/modify"), "{")
        #expect(badJSON.status == 400 && object(badJSON)["serverErrorCode"] as? String == "BAD_REQUEST")
        for answer in [signedOut, missingZone, badJSON] {
            let keys = Set(object(answer).keys)
            #expect(!keys.contains("ckErrorCode"), "CloudKit JS would read ckErrorCode: \(answer.text)")
            #expect(keys.subtracting(apples).subtracting(["syncscopeErrorCode"]).isEmpty, "\(answer.text)")
            #expect(keys.isSuperset(of: ["serverErrorCode", "reason"]))
        }
        let conflict = try await request(
            server, "POST", db("records/modify"),
            #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"update","record":{"recordName":"n1","recordType":"Note","recordChangeTag":"stale"}}]}"#)
        let item = (object(conflict)["records"] as? [[String: Any]])?.first ?? [:]
        #expect(item["serverErrorCode"] as? String == "CONFLICT" && item["recordName"] as? String == "n1", "\(conflict.text)")
        #expect(item["ckErrorCode"] == nil)

        // records/changes: from nil in pages, then from the token.
        let page = object(try await request(server, "POST", db("records/changes"), #"{"zoneID":{"zoneName":"Notes"},"resultsLimit":2}"#))
        #expect((page["records"] as? [[String: Any]])?.compactMap { $0["recordName"] as? String }.count == 2, "\(page)")
        #expect(page["moreComing"] as? Bool == true)
        let token = try #require(page["syncToken"] as? String)
        let rest = object(try await request(server, "POST", db("records/changes"), #"{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(token)"}"#))
        let restNames = (rest["records"] as? [[String: Any]])?.compactMap { $0["recordName"] as? String } ?? []
        let firstNames = (page["records"] as? [[String: Any]])?.compactMap { $0["recordName"] as? String } ?? []
        #expect(Set(firstNames + restNames) == ["n1", "n2", "n3"] && restNames.count == 1)
        #expect(rest["moreComing"] as? Bool == false)
        let last = try #require(rest["syncToken"] as? String)
        // Nothing changed since: an empty page from the last token.
        let none = object(try await request(server, "POST", db("records/changes"), #"{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(last)"}"#))
        #expect((none["records"] as? [[String: Any]])?.isEmpty == true && none["moreComing"] as? Bool == false)

        // users/lookup/contacts by GET, as CloudKit JS sends it (and by POST, as Apple documents).
        for method in ["GET", "POST"] {
            let contacts = try await request(server, method, db("users/lookup/contacts", "public"), method == "POST" ? "{}" : nil)
            #expect(contacts.status == 200, "\(method): \(contacts.text)")
            #expect((object(contacts)["users"] as? [[String: Any]])?.compactMap { $0["userRecordName"] as? String } == ["bob"], "\(method)")
        }
    }
}
