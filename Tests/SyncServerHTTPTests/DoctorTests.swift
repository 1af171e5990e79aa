import Foundation
import SyncCore
import SyncDoctor
import SyncTestSupport
import SyncWire
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// The sync doctor on a running server: for each code, a scripted raw-HTTP
/// client that makes the mistake (named) and one that does the same work
/// correctly (nothing named).
@Suite struct DoctorTests {
    /// A client speaking raw HTTP as one app: its token and User-Agent.
    struct Script {
        let server: LiveServer
        var token: String
        var userAgent = "python-requests/2.32.3"

        func post(_ operation: String, _ json: String) async throws -> RawHTTP.Answer {
            try await EventFeedTests.send(server, "POST", "\(EventFeedTests.database)/\(operation)", token: token, userAgent: userAgent, json: json)
        }

        func get(_ path: String) async throws -> RawHTTP.Answer {
            try await EventFeedTests.send(server, "GET", path, token: token, userAgent: userAgent)
        }

        func makeZone(_ name: String = "Z") async throws {
            let answer = try await post("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(name)"}}}]}"#)
            #expect(answer.status == 200, "\(answer.text)")
        }

        func save(_ names: [String], zone: String = "Z") async throws -> RawHTTP.Answer {
            let operations = names.map { #"{"operationType":"forceReplace","record":{"recordName":"\#($0)","recordType":"Note","fields":{"n":{"value":1}}}}"# }
            return try await post("records/modify", #"{"zoneID":{"zoneName":"\#(zone)"},"operations":[\#(operations.joined(separator: ","))]}"#)
        }

        /// `changes/zone` of zone Z from a token (or none): the answer's zone entry.
        func fetch(from token: String?, limit: Int? = nil) async throws -> [String: Any] {
            let since = token.map { #","syncToken":"\#($0)""# } ?? ""
            let results = limit.map { #","resultsLimit":\#($0)"# } ?? ""
            let answer = try await post("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"}\#(since)\#(results)}]}"#)
            return (answer.json["zones"] as? [[String: Any]])?.first ?? answer.json
        }
    }

    func server() async throws -> (LiveServer, Script) {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 11))
        return (server, Script(server: server, token: server.aliceToken))
    }

    /// The codes the doctor names from the server's feed, as of `later` ms after its last event.
    func codes(_ server: LiveServer, later: Int64 = 0, doctor: SyncDoctor = SyncDoctor()) async throws -> [DiagnosisCode] {
        let feed = try await EventFeedTests.feed(server, "bodies=true&limit=10000")
        let now = (feed.events.last?.time ?? 0) + later
        return doctor.diagnose(feed.events, now: now).map(\.code)
    }

    @Test func tokenNotCached() async throws {
        let (server, bad) = try await server()
        defer { server.stop() }
        try await bad.makeZone()
        _ = try await bad.save(["a"])
        for _ in 0..<3 { _ = try await bad.fetch(from: nil) }
        #expect(try await codes(server) == [.tokenNotCached])

        let (other, good) = try await self.server()
        defer { other.stop() }
        try await good.makeZone()
        _ = try await good.save(["a"])
        var token = try await good.fetch(from: nil)["syncToken"] as? String
        for _ in 0..<3 { token = try await good.fetch(from: token)["syncToken"] as? String }
        #expect(try await codes(other) == [])
    }

    @Test func wrongTokenKind() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        try await script.makeZone()
        let database = try await script.post("changes/database", "{}").json["syncToken"] as? String
        let zone = try await script.fetch(from: nil)["syncToken"] as? String
        // Right: each kind where it belongs.
        _ = try await script.post("changes/database", #"{"syncToken":"\#(database ?? "")"}"#)
        _ = try await script.fetch(from: zone)
        #expect(try await codes(server) == [])
        // Wrong: the database token to a zone fetch.
        _ = try await script.fetch(from: database)
        #expect(try await codes(server) == [.wrongTokenKind])
    }

    @Test func moreComingIgnored() async throws {
        let (server, bad) = try await server()
        defer { server.stop() }
        try await bad.makeZone()
        _ = try await bad.save(["a", "b", "c"])
        let first = try await bad.fetch(from: nil, limit: 1)
        #expect(first["moreComing"] as? Bool == true)
        // It starts over instead of asking for the next batch.
        _ = try await bad.fetch(from: nil, limit: 1)
        #expect(try await codes(server) == [.moreComingIgnored])

        let (other, good) = try await self.server()
        defer { other.stop() }
        try await good.makeZone()
        _ = try await good.save(["a", "b", "c"])
        var batch = try await good.fetch(from: nil, limit: 1)
        while batch["moreComing"] as? Bool == true { batch = try await good.fetch(from: batch["syncToken"] as? String, limit: 1) }
        #expect(try await codes(other, later: 3_600_000) == [])
    }

    @Test func expiredTokenReused() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        try await script.makeZone()
        _ = try await script.save(["a"])
        let token = try await script.fetch(from: nil)["syncToken"] as? String
        // The zone goes and comes back: the token's history is gone.
        _ = try await script.post("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)
        try await script.makeZone()
        let expired = try await script.fetch(from: token)
        #expect(expired["serverErrorCode"] as? String == "CHANGE_TOKEN_EXPIRED", "\(expired)")
        // Right: start over from no token.
        _ = try await script.fetch(from: nil)
        #expect(try await codes(server) == [])
        // Wrong: the same token again.
        _ = try await script.fetch(from: token)
        #expect(try await codes(server) == [.expiredTokenReused])
    }

    @Test func limitExceededResent() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        try await script.makeZone()
        let names = (0..<401).map { "r\($0)" }
        #expect(try await script.save(names).status != 200)
        // Right: split.
        #expect(try await script.save(Array(names.prefix(400))).status == 200)
        #expect(try await script.save(Array(names.suffix(1))).status == 200)
        #expect(try await codes(server) == [])
        // Wrong: refused, then sent again as it was.
        #expect(try await script.save(names).status != 200)
        #expect(try await script.save(names).status != 200)
        #expect(try await codes(server) == [.limitExceededResent])
    }

    @Test func zoneNotFoundIgnored() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        let missing = try await script.save(["a"], zone: "Gone")
        #expect(missing.text.contains("ZONE_NOT_FOUND"), "\(missing.text)")
        // Right: create the zone, then write.
        try await script.makeZone("Gone")
        #expect(try await script.save(["a"], zone: "Gone").status == 200)
        #expect(try await codes(server) == [])
        // Wrong: write on and on to a zone the server said is not there.
        _ = try await script.save(["a"], zone: "Never")
        _ = try await script.save(["a"], zone: "Never")
        #expect(try await codes(server) == [.zoneNotFoundIgnored])
    }

    @Test func conflictLoop() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        try await script.makeZone()
        func update(_ tag: String?) async throws -> [String: Any] {
            let change = tag.map { #","recordChangeTag":"\#($0)""# } ?? ""
            let answer = try await script.post(
                "records/modify",
                #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"\#(tag == nil ? "create" : "update")","record":{"recordName":"r","recordType":"Note"\#(change),"fields":{"n":{"value":1}}}}]}"#)
            return (answer.json["records"] as? [[String: Any]])?.first ?? [:]
        }
        let created = try await update(nil)
        let stale = try #require(created["recordChangeTag"] as? String)
        let current = try #require(try await update(stale)["recordChangeTag"] as? String)
        // Right: a conflict, then the server's tag.
        #expect(try await update(stale)["serverErrorCode"] as? String == "CONFLICT")
        let merged = try await update(current)
        #expect(merged["serverErrorCode"] == nil, "\(merged)")
        #expect(try await codes(server) == [])
        // Wrong: the stale tag again and again.
        let newest = try #require(merged["recordChangeTag"] as? String)
        _ = newest
        for _ in 0..<3 { #expect(try await update(stale)["serverErrorCode"] as? String == "CONFLICT") }
        #expect(try await codes(server) == [.conflictLoop])
    }

    @Test func retriedTooEarly() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        try await script.makeZone()
        let admin = Script(server: server, token: server.host.adminToken, userAgent: "syncscope")
        func throttleOnce(_ seconds: Double) async throws {
            let rule = #"{"operation":"add","rules":[{"kind":"throttled","retryAfter":\#(seconds),"times":1,"operations":["records/modify"]}]}"#
            let added = try await EventFeedTests.send(server, "POST", "/admin/1/\(EventFeedTests.container)/development/faults", token: admin.token, json: rule)
            #expect(added.status == 200, "\(added.text)")
        }
        // Right: the client waits as long as it was told (here 0.2 s), then sends again.
        try await throttleOnce(0.2)
        #expect(try await script.save(["a"]).status != 200)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await script.save(["a"]).status == 200)
        #expect(try await codes(server) == [])
        // Wrong: at once, though told 30 s.
        try await throttleOnce(30)
        #expect(try await script.save(["b"]).status != 200)
        #expect(try await script.save(["b"]).status == 200)
        #expect(try await codes(server) == [.retriedTooEarly])
    }

    /// A web page registered for pushes (as CloudKit JS does), subscribed to zone Z; another client writes.
    func pushed(_ server: LiveServer, _ script: Script) async throws -> String {
        var page = script
        page.userAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
        let created = try await EventFeedTests.send(server, "POST", "/database/1/\(EventFeedTests.container)/development/tokens/create", token: page.token, userAgent: page.userAgent, json: "{}")
        let courier = try #require(created.json["webcourierURL"] as? String).split(separator: "/").last.map(String.init) ?? ""
        try await script.makeZone()
        _ = try await page.fetch(from: nil)
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"Z"}}}]}"#
        #expect(try await page.post("subscriptions/modify", subscribe).status == 200)
        _ = try await script.save(["a"])
        let poll = try await page.get("/device/1/\(EventFeedTests.container)/development/webcourier/\(courier)?timeout=10")
        #expect(poll.status == 200 && !poll.body.isEmpty, "\(poll.text)")
        return courier
    }

    @Test func pushIgnored() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        _ = try await pushed(server, script)
        // Within the window nothing is named yet; past it, the push was ignored.
        #expect(try await codes(server) == [])
        #expect(try await codes(server, later: 31_000) == [.pushIgnored])

        let (other, good) = try await self.server()
        defer { other.stop() }
        _ = try await pushed(other, good)
        var page = good
        page.userAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
        _ = try await page.fetch(from: nil)
        #expect(try await codes(other, later: 31_000) == [])
    }

    @Test func pollStorm() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        let created = try await EventFeedTests.send(server, "POST", "/database/1/\(EventFeedTests.container)/development/tokens/create", token: script.token, json: "{}")
        let courier = try #require(created.json["webcourierURL"] as? String).split(separator: "/").last.map(String.init) ?? ""
        let poll = "/device/1/\(EventFeedTests.container)/development/webcourier/\(courier)"
        // Right: one poll with a timeout (here a short one, that comes back empty).
        _ = try await script.get("\(poll)?timeout=0.2")
        #expect(try await codes(server) == [])
        // Wrong: polls with no timeout, one after another.
        for _ in 0..<6 { _ = try await script.get("\(poll)?timeout=0") }
        #expect(try await codes(server) == [.pollStorm])
    }

    @Test func tokenBeforeData() async throws {
        let (server, script) = try await server()
        defer { server.stop() }
        try await script.makeZone()
        _ = try await script.save(["a", "b"])
        // Right: the first fetch from no token, then from its token.
        let token = try await script.fetch(from: nil)["syncToken"] as? String
        _ = try await script.fetch(from: token)
        #expect(try await codes(server) == [])
        // Wrong: a zone's current token from a listing, used as if the data had come with it.
        try await script.makeZone("Fresh")
        _ = try await script.save(["c"], zone: "Fresh")
        let listed = try await script.post("zones/list", "{}")
        let zones = listed.json["zones"] as? [[String: Any]] ?? []
        let current = zones.first { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String == "Fresh" }?["syncToken"] as? String
        let fetch = try await script.post("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Fresh"},"syncToken":"\#(try #require(current))"}]}"#)
        #expect(fetch.status == 200, "\(fetch.text)")
        #expect(try await codes(server) == [.tokenBeforeData])
    }
}
