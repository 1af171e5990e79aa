import Foundation
import SyncTestSupport
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// Faults over HTTP: the admin calls that list, add and clear rules at run
/// time, faulted answers with their codes and Retry-After, and the ambiguous
/// commit (journaled, then the connection drops without an answer).
@Suite struct FaultsHTTPTests {
    static let container = "iCloud.com.example.Faults"
    static func db(_ operation: String) -> String { "/database/1/\(container)/development/private/\(operation)" }
    static let faultsPath = "/admin/1/\(container)/development/faults"

    func post(_ server: LiveServer, _ path: String, _ body: String, token: String?) async throws -> RawHTTP.Answer {
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await server.raw.exchange(RawHTTP.request("POST", path, headers: headers, body: Data(body.utf8)))
    }

    func save(_ server: LiveServer, _ name: String) async throws -> RawHTTP.Answer {
        try await post(
            server, Self.db("records/modify"),
            #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#,
            token: server.aliceToken)
    }

    func names(_ server: LiveServer) async throws -> [String] {
        let answer = try await post(server, Self.db("changes/zone"), #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#, token: server.aliceToken)
        let zones = answer.json["zones"] as? [[String: Any]]
        return ((zones?.first?["records"] as? [[String: Any]]) ?? []).compactMap { $0["recordName"] as? String }.sorted()
    }

    @Test func adminCallsListAddAndClearRulesAndFaultedAnswersCarryTheirCodes() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 5))
        defer { server.stop() }
        let created = try await post(
            server, Self.db("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
            token: server.aliceToken)
        #expect(created.status == 200)

        // Only the server admin may change the faults.
        let refused = try await post(server, Self.faultsPath, #"{"operation":"list"}"#, token: server.aliceToken)
        #expect(refused.status == 403)

        let empty = try await post(server, Self.faultsPath, #"{"operation":"list"}"#, token: server.host.adminToken)
        #expect(empty.status == 200)
        #expect((empty.json["rules"] as? [Any])?.isEmpty == true)

        let added = try await post(
            server, Self.faultsPath,
            #"{"operation":"add","rules":[{"kind":"throttled","retryAfter":3,"operations":["records/modify"],"times":1},{"kind":"serviceUnavailable","retryAfter":7,"operations":["changes/zone"],"times":1}]}"#,
            token: server.host.adminToken)
        #expect(added.status == 200, "\(added.text)")
        #expect((added.json["added"] as? [Int]) == [1, 2])

        let throttled = try await save(server, "a")
        #expect(throttled.status == 429)
        #expect(throttled.json["serverErrorCode"] as? String == "THROTTLED")
        #expect(throttled.json["retryAfter"] as? Double == 3)
        #expect(throttled.headers["retry-after"] == "3")
        #expect(try await save(server, "a").status == 200)  // times: 1

        let unavailable = try await post(server, Self.db("changes/zone"), #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#, token: server.aliceToken)
        #expect(unavailable.status == 503)
        #expect(unavailable.json["serverErrorCode"] as? String == "TRY_AGAIN_LATER")

        let listed = try await post(server, Self.faultsPath, "{}", token: server.host.adminToken)
        let rules = listed.json["rules"] as? [[String: Any]]
        #expect(rules?.count == 2)
        #expect(rules?.first?["fired"] as? Int == 1)
        #expect((listed.json["injected"] as? [String: Int]) == ["throttled": 1, "serviceUnavailable": 1])

        let cleared = try await post(server, Self.faultsPath, #"{"operation":"clear","kinds":["throttled"]}"#, token: server.host.adminToken)
        #expect(cleared.json["removed"] as? Int == 1)
        let all = try await post(server, Self.faultsPath, #"{"operation":"clear"}"#, token: server.host.adminToken)
        #expect((all.json["rules"] as? [Any])?.isEmpty == true)

        // Bad rules are refused with a reason.
        let bad = try await post(server, Self.faultsPath, #"{"operation":"add","rules":[{"kind":"throttle"}]}"#, token: server.host.adminToken)
        #expect(bad.status == 400)
        #expect(bad.reason.contains("unknown kind 'throttle'"), "\(bad.reason)")
    }

    @Test func anAmbiguousCommitIsAppliedButTheConnectionDropsWithoutAnAnswer() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 6))
        defer { server.stop() }
        _ = try await post(
            server, Self.db("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
            token: server.aliceToken)
        let added = try await post(
            server, Self.faultsPath, #"{"operation":"add","rules":[{"kind":"ambiguousCommit","operations":["records/modify"],"times":1}]}"#,
            token: server.host.adminToken)
        #expect(added.status == 200, "\(added.text)")
        var complete = false
        do {
            let answer = try await save(server, "lost-answer")
            let announced = Int(answer.headers["content-length"] ?? "") ?? 0
            complete = answer.body.count >= announced && announced > 0
        } catch {
            complete = false  // no answer at all
        }
        #expect(!complete, "the client must not get a whole answer")
        #expect(try await names(server) == ["lost-answer"])
    }

    @Test func latencyOverHTTPIsRealTime() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 7))
        defer { server.stop() }
        let added = try await post(
            server, Self.faultsPath, #"{"operation":"add","rules":[{"kind":"latency","latencyMs":300,"operations":["zones/list"],"times":1}]}"#,
            token: server.host.adminToken)
        #expect(added.status == 200, "\(added.text)")
        let start = ContinuousClock.now
        let answer = try await post(server, Self.db("zones/list"), "{}", token: server.aliceToken)
        #expect(answer.status == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(300))
    }

    func batch(_ names: [String], atomic: Bool?) -> String {
        let operations = names.map {
            #"{"operationType":"forceReplace","record":{"recordName":"\#($0)","recordType":"Note","fields":{"title":{"value":"x"}}}}"#
        }
        let flag = atomic.map { #","atomic":\#($0)"# } ?? ""
        return #"{"zoneID":{"zoneName":"Notes"}\#(flag),"operations":[\#(operations.joined(separator: ","))]}"#
    }

    @Test func itemFailuresAddedByTheAdminFailSomeItemsInApplesPerRecordShapeAndApplyTheOthers() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 8))
        defer { server.stop() }
        _ = try await post(
            server, Self.db("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
            token: server.aliceToken)
        let added = try await post(
            server, Self.faultsPath,
            #"{"operation":"add","rules":[{"kind":"itemFailures","code":"ZONE_BUSY","retryAfter":2,"operations":["records/modify"],"times":1}]}"#,
            token: server.host.adminToken)
        #expect(added.status == 200, "\(added.text)")
        #expect(((added.json["rules"] as? [[String: Any]])?.first?["summary"] as? String)?.contains("some items failed with ZONE_BUSY") == true)

        let names = (0..<8).map { "n\($0)" }
        let answer = try await post(server, Self.db("records/modify"), batch(names, atomic: false), token: server.aliceToken)
        #expect(answer.status == 200, "a partly failed batch is a 200 with errors in place: \(answer.text)")
        let records = try #require(answer.json["records"] as? [[String: Any]])
        #expect(records.compactMap { $0["recordName"] as? String } == names, "every item answered, in order")
        let failed = records.filter { $0["serverErrorCode"] != nil }
        let applied = records.filter { $0["serverErrorCode"] == nil }
        #expect(!failed.isEmpty)
        for item in failed {
            #expect(item["serverErrorCode"] as? String == "ZONE_BUSY")
            #expect(item["retryAfter"] as? Double == 2)
            #expect((item["reason"] as? String)?.contains("injected fault") == true)
            #expect((item["zoneID"] as? [String: Any])?["zoneName"] as? String == "Notes")
        }
        for item in applied { #expect(item["recordChangeTag"] is String, "\(item)") }
        #expect(try await self.names(server) == applied.compactMap { $0["recordName"] as? String }.sorted())

        // times: 1 — the next batch is whole.
        let whole = try await post(server, Self.db("records/modify"), batch(["later"], atomic: false), token: server.aliceToken)
        #expect((whole.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] == nil)
        let listed = try await post(server, Self.faultsPath, "{}", token: server.host.adminToken)
        #expect((listed.json["injected"] as? [String: Int]) == ["itemFailures": 1])
    }

    @Test func itemFailuresInAnAtomicBatchOverHTTPApplyNothing() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 9))
        defer { server.stop() }
        _ = try await post(
            server, Self.db("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
            token: server.aliceToken)
        server.host.addFaults(FaultPlan([FaultRule(.itemFailures(code: .quotaExceeded, retryAfter: nil), frequency: FaultFrequency(times: 1))]))
        let names = ["a", "b", "c", "d", "e"]
        let answer = try await post(server, Self.db("records/modify"), batch(names, atomic: nil), token: server.aliceToken)
        #expect(answer.status == 200)
        let codes = ((answer.json["records"] as? [[String: Any]]) ?? []).map { $0["serverErrorCode"] as? String }
        #expect(codes.count == names.count)
        #expect(codes.contains("QUOTA_EXCEEDED"))
        #expect(codes.allSatisfy { $0 == "QUOTA_EXCEEDED" || $0 == "ATOMIC_ERROR" }, "\(codes)")
        #expect(try await self.names(server).isEmpty)
    }
}
