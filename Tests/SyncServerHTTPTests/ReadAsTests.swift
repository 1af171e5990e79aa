import Foundation
import SyncCore
import SyncTestSupport
import SyncWire
@testable import SyncServerHost
@testable import SyncServerHTTP
import Testing

/// What `syncscope inspect --server` reads with the server admin token:
/// `admin/…/users`, and a user's databases as the user (`X-SyncScope-Read-As`),
/// reads only, the admin token only.
@Suite struct ReadAsTests {
    static let users = "/admin/1/\(EventFeedTests.container)/development/users"

    func send(
        _ server: LiveServer, _ method: String, _ path: String, token: String, readAs: String?, json: String? = nil
    ) async throws -> RawHTTP.Answer {
        var headers = [("Authorization", "Bearer \(token)"), ("User-Agent", "syncscope"), ("X-SyncScope-Inspector", "1")]
        if let readAs { headers.append(("X-SyncScope-Read-As", readAs)) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await server.raw.exchange(RawHTTP.request(method, path, headers: headers, body: json.map { Data($0.utf8) }))
    }

    @Test func theAdminListsTheUsersByNameAndNoTokenLeaves() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, users: ["alice", "bob", "carol"], seed: 3))
        defer { server.stop() }
        let answer = try await send(server, "GET", Self.users, token: server.host.adminToken, readAs: nil)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try WireJSON.decode(WireServerUsers.self, from: answer.body).users == ["alice", "bob", "carol"])
        #expect(!answer.text.contains(server.aliceToken))
        // A user's token is not enough.
        let refused = try await send(server, "GET", Self.users, token: server.aliceToken, readAs: nil)
        #expect(refused.status == 403, "\(refused.text)")
    }

    @Test func theAdminReadsAUsersZonesAndChangesAsThatUser() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 4))
        defer { server.stop() }
        let made = try await EventFeedTests.send(server, "POST", "\(EventFeedTests.database)/zones/modify", token: server.aliceToken, json: EventFeedTests.makeZone)
        #expect(made.status == 200, "\(made.text)")
        let listed = try await send(server, "GET", "\(EventFeedTests.database)/zones/list", token: server.host.adminToken, readAs: "alice")
        #expect(listed.status == 200, "\(listed.text)")
        #expect(listed.text.contains(#""zoneName":"Z""#))
        // bob has no zone Z: read as bob, the admin sees bob's database, not alice's.
        let bobs = try await send(server, "GET", "\(EventFeedTests.database)/zones/list", token: server.host.adminToken, readAs: "bob")
        #expect(bobs.status == 200 && !bobs.text.contains(#""zoneName":"Z""#), "\(bobs.text)")
        let changes = try await send(
            server, "POST", "\(EventFeedTests.database)/changes/zone", token: server.host.adminToken, readAs: "alice",
            json: #"{"zones":[{"zoneID":{"zoneName":"Z"}}]}"#)
        #expect(changes.status == 200, "\(changes.text)")
        // The reads were an inspector's: they are not the user's traffic in the feed.
        let feed = try await EventFeedTests.feed(server)
        #expect(feed.events.filter { $0.kind == "request" }.count == 1)
    }

    @Test func readAsNeverWritesNeverTakesAUsersTokenAndNamesOnlyUsers() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 5))
        defer { server.stop() }
        let write = try await send(
            server, "POST", "\(EventFeedTests.database)/zones/modify", token: server.host.adminToken, readAs: "alice", json: EventFeedTests.makeZone)
        #expect(write.status == 403, "\(write.text)")
        #expect(write.reason.contains("never writes"))
        let asUser = try await send(server, "GET", "\(EventFeedTests.database)/zones/list", token: server.aliceToken, readAs: "bob")
        #expect(asUser.status == 403, "\(asUser.text)")
        let nobody = try await send(server, "GET", "\(EventFeedTests.database)/zones/list", token: server.host.adminToken, readAs: "mallory")
        #expect(nobody.status == 404, "\(nobody.text)")
        // Nothing was written: alice has no zone Z.
        let listed = try await send(server, "GET", "\(EventFeedTests.database)/zones/list", token: server.aliceToken, readAs: nil)
        #expect(!listed.text.contains(#""zoneName":"Z""#))
    }
}
