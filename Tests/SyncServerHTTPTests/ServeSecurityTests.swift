import Foundation
import SyncTestSupport
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `syncscope serve` as an attacker and a careless client would try it:
/// path spellings, content types, methods, other users' push channels and
/// admin calls, dropped polls, half-sent requests and caps.
@Suite struct ServeSecurityTests {
    static let container = "iCloud.com.example.Security"

    static func db(_ operation: String, scope: String = "private") -> String {
        "/database/1/\(container)/development/\(scope)/\(operation)"
    }

    static func device(_ operation: String) -> String { "/device/1/\(container)/development/\(operation)" }
    static func admin(_ operation: String) -> String { "/admin/1/\(container)/development/\(operation)" }

    func temporaryFolder() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent("security-\(UUID().uuidString)") }

    func post(_ server: LiveServer, _ path: String, _ body: String, token: String?, contentType: String = "application/json") async throws -> RawHTTP.Answer {
        var headers: [(String, String)] = contentType.isEmpty ? [] : [("Content-Type", contentType)]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await server.raw.exchange(RawHTTP.request("POST", path, headers: headers, body: Data(body.utf8)))
    }

    func get(_ server: LiveServer, _ path: String, token: String?) async throws -> RawHTTP.Answer {
        try await server.raw.exchange(RawHTTP.request("GET", path, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? []))
    }

    // MARK: Paths

    @Test func theInternalCallsAreUnreachableInEverySpellingAndEveryPathHasOneForm() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await LiveServer(ServeOptions(dataDirectory: folder, seed: 3))
        defer { server.stop() }
        let users = server.host.users
        let spellings: [(String, Int)] = [
            ("/internal/addUser", 404), ("//internal/addUser", 400), ("/%2Finternal/addUser", 400), ("/%2finternal/import", 400),
            ("/./internal/addUser", 400), ("/x/../internal/addUser", 400), ("/%2e/internal/addUser", 400), ("/%2E%2E/internal/import", 400),
            ("/internal%2FaddUser", 400), ("/internal/addUser/", 400), ("/database/1/\(Self.container)//development/private/zones/list", 400),
            ("/database/1/\(Self.container)/development/private/zones/list/", 400), ("/database/1/\(Self.container)/development/./private/zones/list", 400),
            ("/database/1/\(Self.container)/development/private/../private/zones/list", 400), ("/database%2F1/x", 400), ("/\\internal/addUser", 400),
            ("/internal/import", 404), ("/internal/online", 404), ("/internal/acknowledge", 404),
        ]
        for (path, status) in spellings {
            for token in [nil, server.aliceToken] {
                let answer = try await post(server, path, #"{"name":"mallory"}"#, token: token)
                #expect(answer.status == status, "\(path): \(answer.status) \(answer.text)")
                #expect(!answer.reason.isEmpty, "\(path)")
                #expect(!answer.text.contains("webAuthToken"), "\(path)")
            }
        }
        #expect(server.host.users == users)
        // The one spelling works.
        #expect(try await get(server, Self.db("zones/list"), token: server.aliceToken).status == 200)
    }

    // MARK: Content types, methods, CORS

    @Test func anyBodyIsReadAsJSONWithCredentialsAndOnlyApplicationJSONWithout() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 3))
        defer { server.stop() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        let save = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"n","recordType":"Note"}}]}"#
        for type in ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/html", "application/jsonp", ""] {
            // A cross-site form post carries no token: refused without one.
            let anonymous = try await post(server, Self.db("records/modify", scope: "public"), save, token: nil, contentType: type)
            #expect(anonymous.status == 415, "\(type): \(anonymous.text)")
            #expect(anonymous.reason.contains("application/json") && anonymous.reason.contains("credentials"))
            // With a token (curl's form type, say), the body is read as JSON.
            let signedIn = try await post(server, Self.db("records/modify"), save, token: server.aliceToken, contentType: type)
            #expect(signedIn.status == 200, "\(type): \(signedIn.text)")
        }
        let notJSON = try await post(server, Self.db("records/modify"), "title=hello", token: server.aliceToken, contentType: "application/x-www-form-urlencoded")
        #expect(notJSON.status == 400, "\(notJSON.text)")
        let anonymous = try await post(server, Self.db("records/modify", scope: "public"), #"{"operations":[]}"#, token: nil, contentType: "text/plain")
        #expect(anonymous.status == 415)
        #expect(anonymous.reason.contains("credentials"))
        // Apple's clients send text/plain with a token: taken.
        let apple = try await post(server, Self.db("zones/modify"), zone, token: server.aliceToken, contentType: "text/plain;charset=UTF-8")
        #expect(apple.status == 200, "\(apple.text)")
        #expect(apple.headers["access-control-allow-origin"] == nil)
        #expect(apple.headers.keys.allSatisfy { !$0.hasPrefix("access-control-") })
    }

    @Test func aMethodTheRouteDoesNotTakeGets405WithTheRoutesMethods() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 3))
        defer { server.stop() }
        let fd = try await server.raw.connect()
        defer { close(fd) }
        try await server.raw.write(fd, RawHTTP.request("GET", Self.db("records/modify"), headers: [("Authorization", "Bearer \(server.aliceToken)")]))
        let answer = try await server.raw.read(fd)
        #expect(answer.status == 405)
        #expect(answer.headers["allow"] == "POST")
        #expect(answer.reason.contains("takes POST, not GET"), "\(answer.text)")
    }

    @Test(arguments: ["HEAD", "OPTIONS", "PUT", "DELETE", "PATCH", "BREW"])
    func otherMethodsGet405WithAReason(method: String) async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 3))
        defer { server.stop() }
        let fd = try await server.raw.connect()
        defer { close(fd) }
        try await server.raw.write(fd, RawHTTP.request(method, Self.db("zones/list"), headers: [("Authorization", "Bearer \(server.aliceToken)")]))
        let answer = try await server.raw.read(fd)
        #expect(answer.status == 405)
        #expect(answer.headers["allow"] == "GET, POST")
        #expect(answer.headers["access-control-allow-origin"] == nil)
        if method != "HEAD" {
            #expect(answer.reason.contains("GET and POST"), "\(answer.text)")
        } else {
            // HEAD's answer has no body by HTTP's rules; its length says the reason's size.
            #expect(Int(answer.headers["content-length"] ?? "0") ?? 0 > 0)
        }
    }

    // MARK: Push channels belong to their creator

    @Test func aPushChannelIsItsCreatorsAlone() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3))
        defer { server.stop() }
        let created = try await post(server, Self.device("tokens/create"), #"{"apnsEnvironment":"development"}"#, token: server.aliceToken)
        #expect(created.status == 200)
        let id = try #require(created.json["apnsToken"] as? String)
        let poll = try Self.path(of: created) + "?timeout=0"
        // The creator polls without registering (creating is enough).
        #expect(try await get(server, poll, token: server.aliceToken).status == 200)
        // The URL is the credential: polling it as it is needs nothing else.
        #expect(try await get(server, poll, token: nil).status == 200)
        // Bob cannot poll it (even with the exact URL), register it, or borrow its ID.
        let bobPoll = try await get(server, poll, token: server.bobToken)
        #expect(bobPoll.status == 404 && bobPoll.reason.contains("tokens/create"))
        #expect(!bobPoll.text.contains(id))
        #expect(try await get(server, poll, token: server.host.adminToken).status == 404)
        // An altered URL gets nothing: the device ID alone, a changed secret, a cut one.
        let secret = String(poll.split(separator: ".").last!.prefix(64))
        #expect(secret.count == 64 && secret.allSatisfy(\.isHexDigit))
        let flipped = String(secret.dropLast()) + (secret.last == "0" ? "1" : "0")
        for altered in [Self.device("webcourier/\(id)"), poll.replacingOccurrences(of: secret, with: flipped), poll.replacingOccurrences(of: secret, with: secret.prefix(32))] {
            let answer = try await get(server, altered + (altered.contains("?") ? "" : "?timeout=0"), token: nil)
            #expect(answer.status == 404, "\(altered): \(answer.text)")
            #expect(!answer.text.contains(secret))
        }
        let bobRegister = try await post(server, Self.device("tokens/register"), #"{"apnsToken":"\#(id)"}"#, token: server.bobToken)
        #expect(bobRegister.status == 403, "\(bobRegister.text)")
        let madeUp = try await post(server, Self.device("tokens/register"), #"{"apnsToken":"0123456789abcdef"}"#, token: server.bobToken)
        #expect(madeUp.status == 404, "\(madeUp.text)")
        var headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(server.bobToken)"), ("X-SyncScope-Device", id)]
        let borrowed = try await server.raw.exchange(RawHTTP.request("POST", Self.db("zones/list"), headers: headers, body: Data("{}".utf8)))
        #expect(borrowed.status == 403)
        // Alice still owns it and can register it.
        headers[1] = ("Authorization", "Bearer \(server.aliceToken)")
        #expect(try await post(server, Self.device("tokens/register"), #"{"apnsToken":"\#(id)"}"#, token: server.aliceToken).status == 200)
        #expect(try await get(server, poll, token: server.aliceToken).status == 200)
    }

    /// The path (and query) of the webcourierURL in a tokens/create or tokens/register answer.
    static func path(of answer: RawHTTP.Answer) throws -> String {
        let url = try #require((answer.json["webcourierURL"] as? String).flatMap(URLComponents.init(string:)))
        return url.percentEncodedPath
    }

    /// Alice's device with a database subscription; returns its ID and its webcourierURL's path.
    func subscribedDevice(_ server: LiveServer) async throws -> (id: String, path: String) {
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await post(server, Self.db("zones/modify"), zone, token: server.aliceToken).status == 200)
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#
        #expect(try await post(server, Self.db("subscriptions/modify"), subscribe, token: server.aliceToken).status == 200)
        let created = try await post(server, Self.device("tokens/create"), "{}", token: server.aliceToken)
        return (try #require(created.json["apnsToken"] as? String), try Self.path(of: created))
    }

    func save(_ server: LiveServer, _ name: String) async throws {
        let body = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#
        #expect(try await post(server, Self.db("records/modify"), body, token: server.aliceToken).status == 200)
    }

    func notificationIDs(_ answer: RawHTTP.Answer) -> [String] {
        // One notification per answer, Apple's push form: its ID is `ck.nid`; an empty body: none.
        [(answer.json["ck"] as? [String: Any])?["nid"] as? String].compactMap { $0 }
    }

    @Test func aDroppedPollLosesNoNotification() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3))
        defer { server.stop() }
        let (id, path) = try await subscribedDevice(server)
        var received = Set<String>()
        for round in 0..<10 {
            // A client whose own time limit is shorter than the poll's: it gives up and closes.
            let fd = try await server.raw.connect()
            try await server.raw.write(fd, RawHTTP.request("GET", path + "?timeout=30", headers: [("Authorization", "Bearer \(server.aliceToken)")]))
            let opened = ContinuousClock.now + .seconds(10)
            while server.host.openPolls(of: id) == 0, ContinuousClock.now < opened { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.host.openPolls(of: id) == 1)
            close(fd)
            // The server notices at once (it does not wait 30 s), and keeps what comes next.
            let closed = ContinuousClock.now + .seconds(10)
            while server.host.openPolls(of: id) > 0, ContinuousClock.now < closed { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.host.openPolls(of: id) == 0, "round \(round)")
            try await save(server, "r\(round)")
            let next = try await get(server, path + "?timeout=10", token: server.aliceToken)
            received.formUnion(notificationIDs(next))
        }
        // Ten changes, ten notifications (one may come twice; it keeps its notificationID).
        #expect(received.count == 10)
    }

    @Test func aNotificationLeavesTheQueueOnlyWhenAcknowledgedAndDuplicatesKeepTheirID() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3))
        defer { server.stop() }
        let (_, path) = try await subscribedDevice(server)
        try await save(server, "a")
        // Naming nothing acknowledges nothing: the same notification comes again, with its ID.
        let first = notificationIDs(try await get(server, path + "?timeout=10&lastNotificationID=", token: server.aliceToken))
        let again = notificationIDs(try await get(server, path + "?timeout=0&lastNotificationID=", token: server.aliceToken))
        #expect(first.count == 1 && again == first)
        // Naming it acknowledges it.
        let after = notificationIDs(try await get(server, path + "?timeout=0&lastNotificationID=\(first[0])", token: server.aliceToken))
        #expect(after.isEmpty)
        // Without the parameter, the next poll acknowledges what the previous one wrote out.
        try await save(server, "b")
        let second = notificationIDs(try await get(server, path + "?timeout=10", token: server.aliceToken))
        #expect(second.count == 1 && second != first)
        #expect(notificationIDs(try await get(server, path + "?timeout=0", token: server.aliceToken)).isEmpty)
    }

    // MARK: Admin

    @Test func wholeServerAdminCallsNeedTheAdminTokenAndUserAdminCallsTouchOnlyTheirUser() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await LiveServer(ServeOptions(dataDirectory: folder, seed: 3))
        defer { server.stop() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await post(server, Self.db("zones/modify"), zone, token: server.aliceToken).status == 200)
        for operation in ["export", "import", "reset"] {
            for token in [server.bobToken, nil] {
                let answer = try await post(server, Self.admin(operation), "{}", token: token)
                #expect([403, 421].contains(answer.status), "\(operation): \(answer.text)")
                #expect(answer.reason.contains("admin token"), "\(operation)")
            }
        }
        // Bob's purge and reset of encrypted data act on Bob's data only.
        #expect(try await post(server, Self.admin("purgeZone"), #"{"zoneID":{"zoneName":"Notes"}}"#, token: server.bobToken).status == 404)
        #expect(try await post(server, Self.admin("encryptedDataReset"), "{}", token: server.bobToken).status == 200)
        let aliceZones = try await get(server, Self.db("zones/list"), token: server.aliceToken)
        #expect(aliceZones.text.contains("Notes"))
        // The admin export carries no web auth token.
        let export = try await post(server, Self.admin("export"), "{}", token: server.host.adminToken)
        #expect(export.status == 200)
        #expect(!export.text.contains(server.aliceToken) && !export.text.contains(server.bobToken))
        // An import cannot set a token: the users keep theirs.
        var file = export.json
        file["users"] = [
            ["name": "alice", "webAuthToken": "chosen-by-the-importer"], ["name": "bob", "webAuthToken": ""], ["name": "mallory", "webAuthToken": "mine"],
        ]
        let body = String(decoding: try JSONSerialization.data(withJSONObject: file), as: UTF8.self)
        let imported = try await post(server, Self.admin("import"), body, token: server.host.adminToken)
        #expect(imported.status == 200, "\(imported.text)")
        #expect(try await get(server, Self.db("zones/list"), token: "chosen-by-the-importer").status == 401)
        #expect(try await get(server, Self.db("zones/list"), token: "mine").status == 401)
        #expect(try await get(server, Self.db("zones/list"), token: server.aliceToken).status == 200)
        // The admin credential is kept beside users.json, readable by its owner only.
        for name in ["admin.json", "users.json"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
        }
        let adminFile = try String(contentsOf: folder.appendingPathComponent("admin.json"), encoding: .utf8)
        #expect(adminFile.contains(server.host.adminToken))
    }

    // MARK: Time limits and caps

    @Test func halfSentRequestsAreAnsweredAndClosedInTime() async throws {
        // The idle limit is longer than the others: it runs from the connection's start.
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 3, headerTimeout: 0.5, bodyTimeout: 0.5, idleTimeout: 3))
        defer { server.stop() }
        let started = ContinuousClock.now
        // Headers that never end.
        let headers = try await server.raw.connect()
        defer { close(headers) }
        try await server.raw.write(headers, Data("GET \(Self.db("zones/list")) HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8))
        let headerAnswer = try await server.raw.read(headers)
        #expect(headerAnswer.status == 408 && headerAnswer.reason.contains("headers"))
        #expect(await server.raw.isClosed(headers))
        // A body that stops half-way.
        let body = try await server.raw.connect()
        defer { close(body) }
        try await server.raw.write(body, Data("POST \(Self.db("zones/list")) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"zo".utf8))
        let bodyAnswer = try await server.raw.read(body)
        #expect(bodyAnswer.status == 408 && bodyAnswer.reason.contains("body"))
        #expect(await server.raw.isClosed(body))
        // An idle kept-alive connection is closed.
        let idle = try await server.raw.connect()
        defer { close(idle) }
        #expect(await server.raw.isClosed(idle))
        // All within the limits (plus slack for a loaded machine), not held forever.
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try await get(server, Self.db("zones/list"), token: server.aliceToken).status == 200)
    }

    @Test func beyondTheCapsTheServerSays503WithRetryAfter() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3, maxConnections: 4, maxPollsPerDevice: 1))
        defer { server.stop() }
        let (id, path) = try await subscribedDevice(server)
        // One poll open; a second on the same device is refused.
        let pollSocket = try await server.raw.connect()
        defer { close(pollSocket) }
        try await server.raw.write(pollSocket, RawHTTP.request("GET", path + "?timeout=30", headers: [("Authorization", "Bearer \(server.aliceToken)")]))
        let opened = ContinuousClock.now + .seconds(10)
        while server.host.openPolls(of: id) == 0, ContinuousClock.now < opened { try await Task.sleep(for: .milliseconds(5)) }
        let second = try await get(server, path + "?timeout=0", token: server.aliceToken)
        #expect(second.status == 503, "\(second.text)")
        #expect(second.json["retryAfter"] as? Double != nil && second.headers["retry-after"] != nil)
        // Connections: the poll and three idle ones fill the cap; one more is refused at once.
        let settled = ContinuousClock.now + .seconds(10)
        while server.http.openConnections > 1, ContinuousClock.now < settled { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.http.openConnections == 1)
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<3 { idle.append(try await server.raw.connect()) }
        let extra = try await server.raw.connect()
        defer { close(extra) }
        let refused = try await server.raw.read(extra)
        #expect(refused.status == 503 && refused.json["retryAfter"] as? Double != nil, "\(refused.text)")
        #expect(refused.reason.contains("connections"))
        // Room again once some close.
        for fd in idle { close(fd) }
        idle = []
        let again = ContinuousClock.now + .seconds(10)
        var status = 0
        while status != 200, ContinuousClock.now < again {
            status = (try? await get(server, Self.db("zones/list"), token: server.aliceToken).status) ?? 0
            if status != 200 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(status == 200)
    }
}
