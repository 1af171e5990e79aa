import Foundation
import SyncTestSupport
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// Every fault kind added with the admin call (`POST /admin/1/{container}/{environment}/faults`)
/// and met by a client over HTTP: the whole-request errors with their codes
/// and statuses, read lag on `changes/database`, and each push fault on the
/// webcourier long-poll. (Throttling, outages, item failures, ambiguous
/// commits and latency: ``FaultsHTTPTests``.)
@Suite struct FaultsHTTPKindsTests {
    static let container = "iCloud.com.example.FaultKinds"
    static func db(_ operation: String) -> String { "/database/1/\(container)/development/private/\(operation)" }
    static let faultsPath = "/admin/1/\(container)/development/faults"

    func post(_ server: LiveServer, _ path: String, _ body: String, token: String?) async throws -> RawHTTP.Answer {
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await server.raw.exchange(RawHTTP.request("POST", path, headers: headers, body: Data(body.utf8)))
    }

    /// A server with alice's Notes zone and the rule added through the admin route.
    func server(seed: UInt64, rule: String) async throws -> LiveServer {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: seed))
        let zone = try await post(
            server, Self.db("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
            token: server.aliceToken)
        #expect(zone.status == 200)
        let added = try await post(server, Self.faultsPath, #"{"operation":"add","rules":[\#(rule)]}"#, token: server.host.adminToken)
        #expect(added.status == 200, "\(added.text)")
        return server
    }

    func save(_ server: LiveServer, _ name: String) async throws -> RawHTTP.Answer {
        try await post(
            server, Self.db("records/modify"),
            #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#,
            token: server.aliceToken)
    }

    func injected(_ server: LiveServer) async throws -> [String: Int] {
        let listed = try await post(server, Self.faultsPath, #"{"operation":"list"}"#, token: server.host.adminToken)
        return listed.json["injected"] as? [String: Int] ?? [:]
    }

    @Test(arguments: [
        (#"{"kind":"zoneBusy","retryAfter":4,"times":1}"#, 503, "ZONE_BUSY", "4"),
        (#"{"kind":"quotaExceeded","times":1}"#, 413, "QUOTA_EXCEEDED", nil),
        (#"{"kind":"internalError","times":1}"#, 500, "INTERNAL_ERROR", nil),
        (#"{"kind":"serviceUnavailable","times":1}"#, 503, "TRY_AGAIN_LATER", nil),
    ] as [(String, Int, String, String?)])
    func aWholeRequestFaultAnswersItsCodeAndAppliesNothing(rule: String, status: Int, code: String, retryAfter: String?) async throws {
        let server = try await server(seed: 21, rule: rule)
        defer { server.stop() }
        let answer = try await save(server, "refused")
        #expect(answer.status == status, "\(answer.text)")
        #expect(answer.json["serverErrorCode"] as? String == code)
        #expect((answer.json["reason"] as? String)?.contains("injected fault") == true)
        #expect(answer.headers["retry-after"] == retryAfter)
        let changes = try await post(server, Self.db("changes/zone"), #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#, token: server.aliceToken)
        #expect(((changes.json["zones"] as? [[String: Any]])?.first?["records"] as? [Any])?.isEmpty == true, "nothing applied")
        #expect(try await save(server, "later").status == 200, "times: 1")
        #expect(try await injected(server).values.reduce(0, +) == 1)
    }

    @Test func readLagAnswersChangesDatabaseWithTheCallersOwnTokenUntilItIsCleared() async throws {
        let server = try await server(seed: 22, rule: #"{"kind":"readLag","lagMs":600000}"#)
        defer { server.stop() }
        let first = try await post(server, Self.db("changes/database"), "{}", token: server.aliceToken)
        let token = try #require(first.json["syncToken"] as? String)
        #expect(try await save(server, "new").status == 200)
        let lagged = try await post(server, Self.db("changes/database"), #"{"syncToken":"\#(token)"}"#, token: server.aliceToken)
        #expect(lagged.status == 200)
        #expect(lagged.json["syncToken"] as? String == token, "nothing new: the caller's own token")
        #expect((lagged.json["zones"] as? [Any])?.isEmpty == true)
        #expect(try await injected(server)["readLag"] == 1)
        _ = try await post(server, Self.faultsPath, #"{"operation":"clear","kinds":["readLag"]}"#, token: server.host.adminToken)
        let caughtUp = try await post(server, Self.db("changes/database"), #"{"syncToken":"\#(token)"}"#, token: server.aliceToken)
        let zones = (caughtUp.json["zones"] as? [[String: Any]])?.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String }
        #expect(zones == ["Notes"], "\(caughtUp.text)")
    }

    // MARK: Push faults on the long-poll

    /// A device of alice with a query subscription on new notes: each
    /// notification names its record.
    func device(_ server: LiveServer) async throws -> String {
        let subscribed = try await post(
            server, Self.db("subscriptions/modify"),
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"new-notes","subscriptionType":"query","zoneID":{"zoneName":"Notes"},"query":{"recordType":"Note"},"firesOn":["create"]}}]}"#,
            token: server.aliceToken)
        #expect(subscribed.status == 200, "\(subscribed.text)")
        let created = try await post(
            server, "/database/1/\(Self.container)/development/tokens/create", #"{"apnsEnvironment":"development"}"#, token: server.aliceToken)
        let url = try #require(created.json["webcourierURL"] as? String)
        return try #require(URL(string: url)?.path)
    }

    /// Polls the web courier (one notification per answer, Apple's
    /// `{aps, ck}` form; each poll acknowledges what the last one delivered)
    /// until `done` holds for the record names heard so far, in arrival
    /// order, or the deadline passes.
    func poll(_ server: LiveServer, _ path: String, seconds: Double = 20, until done: ([String]) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var names: [String] = []
        repeat {
            let answer = try await server.raw.exchange(
                RawHTTP.request("GET", path + "?timeout=1", headers: [("Authorization", "Bearer \(server.aliceToken)")]),
                timeout: 10)
            #expect(answer.status == 200, "\(answer.text)")
            if !answer.text.isEmpty {
                let ck = try #require(answer.json["ck"] as? [String: Any], "\(answer.text)")
                let query = try #require(ck["qry"] as? [String: Any], "\(answer.text)")
                names.append(try #require(query["rid"] as? String))
            }
            if done(names) { return names }
        } while ContinuousClock.now < deadline
        return names
    }

    @Test func aDroppedPushNeverArrivesAndTheNextOneDoes() async throws {
        let server = try await server(seed: 23, rule: #"{"kind":"pushDrop","times":1}"#)
        defer { server.stop() }
        let path = try await device(server)
        #expect(try await save(server, "lost").status == 200)
        #expect(try await save(server, "heard").status == 200)
        let names = try await poll(server, path) { $0.contains("heard") }
        #expect(names == ["heard"], "\(names)")
        #expect(try await injected(server)["pushDrop"] == 1)
    }

    @Test func aDuplicatedPushArrivesTwice() async throws {
        let server = try await server(seed: 24, rule: #"{"kind":"pushDuplicate","times":1}"#)
        defer { server.stop() }
        let path = try await device(server)
        #expect(try await save(server, "twice").status == 200)
        let names = try await poll(server, path) { $0.count >= 2 }
        #expect(names == ["twice", "twice"], "\(names)")
        #expect(try await injected(server)["pushDuplicate"] == 1)
    }

    @Test func aDelayedPushComesLate() async throws {
        let server = try await server(seed: 25, rule: #"{"kind":"pushDelay","delayMs":1500,"times":1}"#)
        defer { server.stop() }
        let path = try await device(server)
        let saved = ContinuousClock.now
        #expect(try await save(server, "late").status == 200)
        let names = try await poll(server, path) { $0.contains("late") }
        #expect(names == ["late"])
        #expect(ContinuousClock.now - saved >= .milliseconds(1500), "not before its delay")
        #expect(try await injected(server)["pushDelay"] == 1)
    }

    @Test func aReorderedPushArrivesAfterTheNextOne() async throws {
        let server = try await server(seed: 26, rule: #"{"kind":"pushReorder","times":1}"#)
        defer { server.stop() }
        let path = try await device(server)
        #expect(try await save(server, "first").status == 200)
        #expect(try await save(server, "second").status == 200)
        let names = try await poll(server, path) { $0.count >= 2 }
        #expect(names == ["second", "first"], "the held-back one comes after the later one: \(names)")
        #expect(try await injected(server)["pushReorder"] == 1)
    }
}
