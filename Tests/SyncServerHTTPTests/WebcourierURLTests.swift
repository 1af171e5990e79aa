import Foundation
import SyncTestSupport
@testable import SyncServerHost
@testable import SyncServerHTTP
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The webcourierURL is the credential, as with Apple: CloudKit JS polls it as
/// `tokens/create` gave it, with nothing else. These tests poll the same way,
/// with a raw HTTP client that sends no credentials.
@Suite struct WebcourierURLTests {
    static let container = "iCloud.com.example.Courier"
    static func db(_ operation: String, scope: String = "private") -> String { "/database/1/\(container)/development/\(scope)/\(operation)" }
    static func device(_ operation: String) -> String { "/device/1/\(container)/development/\(operation)" }

    func post(_ server: LiveServer, _ path: String, _ body: String, token: String, device: String? = nil) async throws -> RawHTTP.Answer {
        var headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")]
        if let device { headers.append(("X-SyncScope-Device", device)) }
        return try await server.raw.exchange(RawHTTP.request("POST", path, headers: headers, body: Data(body.utf8)))
    }

    @Test func theExactURLWithNoCredentialsHearsAZoneChangeMadeByAnotherDevice() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 11))
        defer { server.stop() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await post(server, Self.db("zones/modify"), zone, token: server.aliceToken).status == 200)
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await post(server, Self.db("subscriptions/modify"), subscribe, token: server.aliceToken).status == 200)
        // The web client: tokens/create, then the URL as it is.
        let created = try await post(server, Self.device("tokens/create"), #"{"apnsEnvironment":"development"}"#, token: server.aliceToken)
        let webClient = try #require(created.json["apnsToken"] as? String)
        let url = try #require((created.json["webcourierURL"] as? String).flatMap(URLComponents.init(string:)))
        let secret = String(try #require(url.percentEncodedPath.split(separator: ".").last))
        #expect(secret.count == 64)
        // Another device of Alice's makes the change.
        let phone = try #require(try await post(server, Self.device("tokens/create"), "{}", token: server.aliceToken).json["apnsToken"] as? String)

        let poll = try await server.raw.connect()
        defer { close(poll) }
        try await server.raw.write(poll, RawHTTP.request("GET", url.percentEncodedPath))
        let opened = ContinuousClock.now + .seconds(10)
        while server.host.openPolls(of: webClient) == 0, ContinuousClock.now < opened { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.host.openPolls(of: webClient) == 1)
        let save = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#
        let saved = try await post(server, Self.db("records/modify"), save, token: server.aliceToken, device: phone)
        #expect(saved.status == 200)
        let answer = try await server.raw.read(poll)
        #expect(answer.status == 200, "\(answer.text)")
        let ck = try #require(answer.json["ck"] as? [String: Any], "\(answer.text)")
        let fetch = try #require(ck["fet"] as? [String: Any])
        #expect(fetch["zid"] as? String == "Notes" && fetch["sid"] as? String == "notes")

        // The secret is shown to its creator only: not in records, exports, other users' answers.
        #expect(!saved.text.contains(secret))
        let lookup = try await post(server, Self.db("records/lookup"), #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"n1"}]}"#, token: server.aliceToken)
        #expect(lookup.text.contains(phone) && !lookup.text.contains(secret))
        let export = try await post(server, "/admin/1/\(Self.container)/development/export", "{}", token: server.host.adminToken)
        #expect(export.status == 200 && !export.text.contains(secret))
        let bobRegister = try await post(server, Self.device("tokens/register"), #"{"apnsToken":"\#(webClient)"}"#, token: server.bobToken)
        #expect(bobRegister.status == 403 && !bobRegister.text.contains(secret))
        // Its creator gets it again from tokens/register.
        let registered = try await post(server, Self.device("tokens/register"), #"{"apnsToken":"\#(webClient)"}"#, token: server.aliceToken)
        #expect(registered.json["webcourierURL"] as? String == created.json["webcourierURL"] as? String)
    }

    @Test func aDroppedPollWithoutCredentialsLosesNothing() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 12))
        defer { server.stop() }
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#
        #expect(try await post(server, Self.db("subscriptions/modify"), subscribe, token: server.aliceToken).status == 200)
        let created = try await post(server, Self.device("tokens/create"), "{}", token: server.aliceToken)
        let id = try #require(created.json["apnsToken"] as? String)
        let path = try #require((created.json["webcourierURL"] as? String).flatMap(URLComponents.init(string:))).percentEncodedPath
        // A poll that dies before anything comes.
        let dying = try await server.raw.connect()
        try await server.raw.write(dying, RawHTTP.request("GET", path + "?timeout=30"))
        let opened = ContinuousClock.now + .seconds(10)
        while server.host.openPolls(of: id) == 0, ContinuousClock.now < opened { try await Task.sleep(for: .milliseconds(5)) }
        close(dying)
        let closed = ContinuousClock.now + .seconds(10)
        while server.host.openPolls(of: id) > 0, ContinuousClock.now < closed { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.host.openPolls(of: id) == 0)
        // The change made meanwhile waits for the next poll.
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Later"}}}]}"#
        #expect(try await post(server, Self.db("zones/modify"), zone, token: server.aliceToken).status == 200)
        let next = try await server.raw.exchange(RawHTTP.request("GET", path + "?timeout=10"))
        #expect(next.status == 200)
        #expect((next.json["ck"] as? [String: Any])?["met"] != nil, "\(next.text)")
    }

    @Test func theLogShowsNoSecret() {
        let path = "/device/1/C/development/webcourier/0123abcd." + String(repeating: "f", count: 64)
        let shown = APIResponder.withoutSecret(path)
        #expect(shown == "/device/1/C/development/webcourier/0123abcd.ffff…")
        #expect(APIResponder.withoutSecret("/device/1/C/development/webcourier/plain") == "/device/1/C/development/webcourier/plain")
        // A mangled URL (a trailing slash, more segments) is cut too, and cutting twice changes nothing.
        #expect(APIResponder.withoutSecret(path + "/") == shown + "/")
        #expect(APIResponder.withoutSecret(path + "/x/y") == shown + "/x/y")
        #expect(APIResponder.withoutSecret(shown) == shown)
    }
}
