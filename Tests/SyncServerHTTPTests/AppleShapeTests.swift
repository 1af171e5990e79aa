import Foundation
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// The CloudKit Web Services shapes a client written for Apple's servers
/// relies on, through the host (every call as HTTP hands it over).
@Suite struct AppleShapeTests {
    let container = "iCloud.com.example.ShapeTests"

    func host() async throws -> ServerHost {
        try await ServerHost.start(options: ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 5, quiet: true))
    }

    func path(_ database: String, _ operation: String) -> String { "/database/1/\(container)/development/\(database)/\(operation)" }

    func call(
        _ host: ServerHost, _ operation: String, _ json: String? = nil, database: String = "private", user: String? = "alice",
        method: String? = nil, parameters: [String: String] = [:]
    ) async -> (status: Int, json: [String: Any], text: String) {
        let answer = await host.perform(APICall(
            method: method ?? (json == nil ? "GET" : "POST"), path: operation.hasPrefix("/") ? operation : path(database, operation),
            body: Data((json ?? "").utf8), user: user, parameters: parameters))
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        return (answer.status, object, String(decoding: answer.body, as: UTF8.self))
    }

    func setUp(_ host: ServerHost) async {
        #expect(await call(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        let saved = await call(host, "records/modify", #"""
            {"zoneID":{"zoneName":"Notes"},"operations":[
             {"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"one","type":"STRING"},"stars":{"value":5,"type":"INT64"},"secret":{"value":"c2VjcmV0","type":"ENCRYPTED_BYTES"}}}},
             {"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{"title":{"value":"two"},"stars":{"value":2}}}},
             {"operationType":"create","record":{"recordName":"t1","recordType":"Tag","fields":{"label":{"value":"work"}}}}]}
            """#)
        #expect(saved.status == 200, "\(saved.text)")
    }

    func zoneToken(_ host: ServerHost) async throws -> String {
        let zones = await call(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#).json["zones"] as? [[String: Any]]
        return try #require(zones?.first?["syncToken"] as? String)
    }

    @Test func deletionsComeBackInApplesShapeAndTypesAndNumbersAreHonoured() async throws {
        let host = try await host()
        await setUp(host)
        let token = try await zoneToken(host)
        #expect(await call(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceDelete","record":{"recordName":"n1"}},{"operationType":"forceDelete","record":{"recordName":"t1"}}]}"#).status == 200)
        let changes = await call(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(token)"}]}"#)
        let records = (changes.json["zones"] as? [[String: Any]])?.first?["records"] as? [[String: Any]] ?? []
        #expect(records.count == 2)
        for record in records {
            #expect(Set(record.keys) == ["recordName", "deleted"], "a deletion is {recordName, deleted: true} only: \(record)")
            #expect(record["deleted"] as? Bool == true)
        }
        let typed = await call(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"desiredRecordTypes":["Tag"],"syncToken":"\#(token)"}]}"#)
        let tagOnly = (typed.json["zones"] as? [[String: Any]])?.first?["records"] as? [[String: Any]] ?? []
        #expect(tagOnly.map { $0["recordName"] as? String } == ["t1"])
        let fromStart = await call(host, "changes/zone", #"{"numbersAsStrings":true,"zones":[{"zoneID":{"zoneName":"Notes"},"desiredRecordTypes":["Note"]}]}"#)
        #expect(fromStart.text.contains(#""stars":{"type":"INT64","value":"2"}"#), "\(fromStart.text)")
        #expect(!fromStart.text.contains("\"t1\""))
    }

    @Test func queryAnswersInApplesShapeWithPagingAndSyncToken() async throws {
        let host = try await host()
        await setUp(host)
        let first = await call(
            host, "records/query",
            #"{"zoneID":{"zoneName":"Notes","zoneType":"REGULAR_CUSTOM_ZONE"},"resultsLimit":1,"query":{"recordType":"Note","sortBy":[{"fieldName":"stars","ascending":false}]},"desiredKeys":["title"]}"#,
            parameters: ["getCurrentSyncToken": "True"])
        #expect(first.status == 200, "\(first.text)")
        let records = first.json["records"] as? [[String: Any]] ?? []
        #expect(records.map { $0["recordName"] as? String } == ["n1"])
        #expect((records.first?["fields"] as? [String: Any])?.keys.sorted() == ["title"])
        #expect(first.json["syncToken"] as? String == (try await zoneToken(host)))
        let marker = try #require(first.json["continuationMarker"] as? String)
        let second = await call(
            host, "records/query",
            #"{"zoneID":{"zoneName":"Notes"},"resultsLimit":1,"continuationMarker":"\#(marker)","query":{"recordType":"Note","sortBy":[{"fieldName":"stars","ascending":false}]}}"#)
        #expect((second.json["records"] as? [[String: Any]])?.map { $0["recordName"] as? String } == ["n2"])
        #expect(second.json["continuationMarker"] == nil)
        #expect(second.json["syncToken"] == nil, "no syncToken unless asked")
        let filtered = await call(
            host, "records/query",
            #"{"zoneID":{"zoneName":"Notes"},"query":{"recordType":"Note","filterBy":[{"comparator":"GREATER_THAN","fieldName":"stars","fieldValue":{"value":3,"type":"INT64"}}]}}"#)
        #expect((filtered.json["records"] as? [[String: Any]])?.map { $0["recordName"] as? String } == ["n1"])
        let badComparator = await call(
            host, "records/query", #"{"query":{"recordType":"Note","filterBy":[{"comparator":"SOUNDS_LIKE","fieldName":"stars","fieldValue":{"value":3}}]}}"#)
        #expect(badComparator.status == 400 && badComparator.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect((badComparator.json["reason"] as? String)?.contains("SOUNDS_LIKE") == true)
        let lookup = await call(host, "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"n1"}]}"#, parameters: ["getCurrentSyncToken": "true"])
        #expect(lookup.json["syncToken"] as? String == (try await zoneToken(host)))
        #expect(lookup.text.contains(#""secret":{"type":"ENCRYPTED_BYTES","value":"c2VjcmV0"}"#), "\(lookup.text)")
    }

    @Test func recordsChangesAndZonesChangesAndZonesLookup() async throws {
        let host = try await host()
        await setUp(host)
        let all = await call(host, "records/changes", #"{"zoneID":{"zoneName":"Notes"},"resultsLimit":2}"#)
        #expect(all.status == 200, "\(all.text)")
        #expect((all.json["records"] as? [[String: Any]])?.count == 2)
        #expect(all.json["moreComing"] as? Bool == true)
        let token = try #require(all.json["syncToken"] as? String)
        let rest = await call(host, "records/changes", #"{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(token)"}"#)
        #expect((rest.json["records"] as? [[String: Any]])?.count == 1)
        #expect(rest.json["moreComing"] as? Bool == false)
        let zones = await call(host, "zones/changes", "{}")
        #expect((zones.json["zones"] as? [[String: Any]])?.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String } == ["Notes"])
        #expect(zones.json["syncToken"] is String)
        // Apple's zones/lookup body, and ours.
        for body in [#"{"zones":[{"zoneName":"Notes"},{"zoneName":"Nope"}]}"#, #"{"zones":[{"zoneID":{"zoneName":"Notes"}},{"zoneID":{"zoneName":"Nope"}}]}"#] {
            let lookup = await call(host, "zones/lookup", body)
            let items = lookup.json["zones"] as? [[String: Any]] ?? []
            #expect(items.count == 2)
            #expect(items.first?["syncToken"] is String)
            #expect(items.last?["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
        }
    }

    @Test func usersAndTokensAtApplesPaths() async throws {
        let host = try await host()
        let current = await call(host, "users/current", database: "public")
        #expect(current.status == 200, "\(current.text)")
        #expect(current.json["userRecordName"] as? String == "alice")
        #expect(current.json["firstName"] as? String == "Alice")
        let caller = await call(host, "users/caller", database: "public")
        #expect((caller.json["lookupInfo"] as? [String: Any])?["emailAddress"] as? String == "alice@syncscope.example")
        for method in ["GET", "POST"] {
            let contacts = await call(host, "users/lookup/contacts", method == "POST" ? "{}" : nil, database: "public", method: method)
            #expect((contacts.json["users"] as? [[String: Any]])?.map { $0["userRecordName"] as? String } == ["bob"], "\(method): \(contacts.text)")
        }
        let everyone = await call(host, "users/discover", database: "public", method: "GET")
        #expect((everyone.json["users"] as? [[String: Any]])?.count == 2)
        let discovered = await call(host, "users/discover", #"{"lookupInfos":[{"emailAddress":"bob@syncscope.example"},{"emailAddress":"nobody@x.example"}]}"#, database: "public")
        #expect((discovered.json["users"] as? [[String: Any]])?.map { $0["userRecordName"] as? String } == ["bob"])
        let byEmail = await call(host, "users/lookup/email", #"{"users":[{"emailAddress":"BOB@syncscope.example"}]}"#, database: "public")
        #expect((byEmail.json["users"] as? [[String: Any]])?.first?["emailAddress"] as? String == "bob@syncscope.example")
        let byID = await call(host, "users/lookup/id", #"{"users":[{"userRecordName":"alice"}]}"#, database: "public")
        #expect((byID.json["users"] as? [[String: Any]])?.first?["userRecordName"] as? String == "alice")
        let missingKey = await call(host, "users/lookup/id", #"{"users":[{"emailAddress":"alice@syncscope.example"}]}"#, database: "public")
        #expect(missingKey.status == 400)
        #expect(await call(host, "users/current", database: "public", user: nil).status == 421)
        // tokens/create at Apple's path and at /device/1/.
        for prefix in ["/database/1", "/device/1"] {
            let created = await call(host, "\(prefix)/\(container)/development/tokens/create", #"{"apnsEnvironment":"development"}"#)
            #expect(created.status == 200, "\(created.text)")
            #expect(created.json["webcourierURL"] is String)
        }
    }

    @Test func errorBodiesCarryApplesKeysAndStatuses() async throws {
        let host = try await host()
        await setUp(host)
        // Whole-request errors: Apple's serverErrorCode with its documented HTTP status.
        let missingZone = await call(host, "records/lookup", #"{"zoneID":{"zoneName":"Nope"},"records":[{"recordName":"x"}]}"#)
        #expect(missingZone.status == 404 && missingZone.json["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
        let noUser = await call(host, "records/modify", #"{"operations":[]}"#, user: nil)
        #expect(noUser.status == 421 && noUser.json["serverErrorCode"] as? String == "AUTHENTICATION_REQUIRED")
        let badJSON = await call(host, "records/modify", "{")
        #expect(badJSON.status == 400 && badJSON.json["serverErrorCode"] as? String == "BAD_REQUEST")
        let unknown = await call(host, "records/nothing", "{}")
        #expect(unknown.status == 404 && unknown.json["serverErrorCode"] as? String == "NOT_FOUND")
        let foreign = await call(host, "records/lookup", #"{"zoneID":{"zoneName":"Notes","ownerRecordName":"alice"},"records":[{"recordName":"n1"}]}"#, user: "bob")
        #expect(foreign.status == 403 && foreign.json["serverErrorCode"] as? String == "ACCESS_DENIED", "\(foreign.text)")
        for answer in [missingZone, noUser, badJSON, unknown, foreign] {
            #expect(answer.json["ckErrorCode"] == nil, "CloudKit JS would read ckErrorCode: \(answer.text)")
            #expect(answer.json["reason"] is String)
        }
        // Per-item errors carry recordName.
        let items = await call(host, "records/modify", #"""
            {"zoneID":{"zoneName":"Notes"},"atomic":false,"operations":[
             {"operationType":"create","record":{"recordName":"n1","recordType":"Note"}},
             {"operationType":"update","record":{"recordName":"n2","recordType":"Note","recordChangeTag":"stale"}},
             {"operationType":"delete","record":{"recordName":"gone"}},
             {"operationType":"create","record":{"recordName":"_hidden","recordType":"Note"}}]}
            """#)
        let codes = (items.json["records"] as? [[String: Any]] ?? []).map { ($0["serverErrorCode"] as? String ?? "", $0["recordName"] as? String ?? "") }
        #expect(codes.map(\.0) == ["EXISTS", "CONFLICT", "NOT_FOUND", "BAD_REQUEST"], "\(items.text)")
        #expect(codes.map(\.1) == ["n1", "n2", "gone", "_hidden"])
        // A null field value removes the field; '/' is allowed in record names.
        let nulled = await call(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"n2","fields":{"title":{"value":null},"stars":null}}},{"operationType":"create","record":{"recordName":"Reminder/1","recordType":"Note"}}]}"#)
        #expect(nulled.status == 200, "\(nulled.text)")
        let after = await call(host, "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"n2"},{"recordName":"Reminder/1"}]}"#)
        let found = after.json["records"] as? [[String: Any]] ?? []
        #expect((found.first?["fields"] as? [String: Any])?.isEmpty == true, "\(after.text)")
        #expect(found.last?["recordName"] as? String == "Reminder/1")
    }

    @Test func assetsUploadThroughServedURLsSurviveARestartAndTravelWithExports() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let (downloadPath, export): (String, Data) = try await {
            let host = try await ServerHost.start(options: ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 5, quiet: true))
            await setUp(host)
            let tokens = await call(host, "assets/upload", #"{"zoneID":{"zoneName":"Notes"},"tokens":[{"recordName":"n1","recordType":"Note","fieldName":"photo"}]}"#)
            #expect(tokens.status == 200, "\(tokens.text)")
            let url = try #require((tokens.json["tokens"] as? [[String: Any]])?.first?["url"] as? String)
            let uploadPath = try #require(URL(string: url)?.path)
            #expect(uploadPath == "/assets/1/\(container)/development/upload")
            let uploaded = await host.perform(APICall(method: "POST", path: uploadPath, body: bytes))
            #expect(uploaded.status == 200)
            let receipt = try #require((try JSONSerialization.jsonObject(with: uploaded.body) as? [String: Any])?["singleFile"] as? [String: Any])
            #expect(receipt["size"] as? Int == bytes.count)
            #expect(receipt["receipt"] is String)
            let receiptJSON = String(decoding: try JSONSerialization.data(withJSONObject: receipt), as: UTF8.self)
            let saved = await call(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"n1","fields":{"photo":{"type":"ASSET","value":\#(receiptJSON)}}}}]}"#)
            #expect(saved.status == 200, "\(saved.text)")
            let looked = await call(host, "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"n1"}]}"#)
            let photo = ((looked.json["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any])?["photo"] as? [String: Any]
            let value = try #require(photo?["value"] as? [String: Any])
            #expect(value["size"] as? Int == bytes.count)
            #expect(value["fileChecksum"] as? String == receipt["fileChecksum"] as? String)
            let download = try #require(value["downloadURL"] as? String)
            let path = try #require(URL(string: download)?.path)
            #expect(path.hasPrefix("/assets/1/\(container)/development/download/"))
            #expect(await host.perform(APICall(method: "GET", path: path)).body == bytes)
            let export = await host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", body: Data("{}".utf8), isServerAdmin: true)).body
            return (path, export)
        }()
        // The journal kept the file: a host reopened on the folder serves it.
        let reopened = try await ServerHost.start(options: ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 5, quiet: true))
        #expect(await reopened.perform(APICall(method: "GET", path: downloadPath)).body == bytes)
        // An export carries it into another server.
        let other = try await host()
        #expect(await other.perform(APICall(method: "GET", path: downloadPath)).status == 404)
        #expect(await other.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/import", body: export, isServerAdmin: true)).status == 200)
        #expect(await other.perform(APICall(method: "GET", path: downloadPath)).body == bytes)
        // Without tokens: a BAD_REQUEST that says what to send.
        let empty = await call(other, "assets/upload", #"{"tokens":[]}"#)
        #expect(empty.status == 400 && (empty.json["reason"] as? String)?.contains("tokens") == true)
    }
}
