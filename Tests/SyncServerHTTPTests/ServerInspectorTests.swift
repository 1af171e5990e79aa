import Foundation
import SyncCore
import SyncNetwork
import SyncInspector
import SyncRemoteWorld
import SyncTestSupport
import Synchronization
@testable import SyncServerHost
@testable import SyncServerHTTP
import Testing

/// `syncscope inspect --server`: the inspector on a `serve` running in this
/// process, watched with its admin token through a ``ScreenWaitBackend``,
/// while scripted raw-HTTP clients talk to it. Whole-frame goldens of the
/// client list, a client's token history and the Diagnostics pane (under
/// `Goldens/`; `SYNCSCOPE_UPDATE_GOLDENS=1` writes them again).
@Suite(.serialized) struct ServerInspectorTests {
    static let size = Size(width: 120, height: 40)

    func server() async throws -> LiveServer {
        try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 24))
    }

    /// Three apps: alice's Python script (fetches from no token three times,
    /// then from its token), alice's web page (saves one more note: the
    /// script is now one change behind), bob's pyicloud (a moreComing it does not follow).
    func traffic(_ server: LiveServer) async throws {
        let alice = DoctorTests.Script(server: server, token: server.aliceToken)
        try await alice.makeZone()
        #expect(try await alice.save(["n1", "n2", "n3"]).status == 200)
        let first = try await alice.fetch(from: nil)
        _ = try await alice.fetch(from: nil)
        _ = try await alice.fetch(from: nil)
        _ = try await alice.fetch(from: try #require(first["syncToken"] as? String))
        let web = DoctorTests.Script(
            server: server, token: server.aliceToken, userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0")
        #expect(try await web.save(["n4"]).status == 200)
        let bob = DoctorTests.Script(server: server, token: server.bobToken, userAgent: "pyicloud/1.3")
        try await bob.makeZone()
        #expect(try await bob.save(["b1", "b2"]).status == 200)
        let page = try await bob.fetch(from: nil, limit: 1)
        #expect(page["moreComing"] as? Bool == true)
        _ = try await bob.fetch(from: nil)
    }

    /// Runs the inspector on `server` until its steps are done, on a terminal thread of its own as `syncscope` does.
    func inspect(_ server: LiveServer, steps: [ScreenWaitBackend.Step]) async throws -> [String: [String]] {
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let token = server.host.adminToken
        return try await TerminalActor().run {
            let world = try await ServerWatchWorld(serverURL: url, adminToken: token, container: EventFeedTests.container)
            let backend = ScreenWaitBackend(size: Self.size, steps: steps)
            let controller = await InspectorController(world: world, screenSize: backend.size)
            do {
                try await controller.run(backend: backend)
            } catch {
                // Said whole (the screen it waited on), not only as a thrown error.
                Issue.record("\(error)")
            }
            return backend.captures
        }
    }

    @Test func theClientListTokenHistoryAndDiagnosesOfAServersClients() async throws {
        let server = try await server()
        defer { server.stop() }
        try await traffic(server)
        let screens = try await inspect(server, steps: [
            // alice's script, focused first: three fetches from no token, then from T1; one change behind now.
            .init(
                waitsFor: "the three clients, alice's lag and both diagnoses",
                condition: { lines in
                    let text = lines.joined(separator: "\n")
                    return text.contains("bob · pyicloud") && text.contains("behind by 1 change") && text.contains("moreComingIgnored")
                        && text.contains("Records · alice private/Z") && text.contains("n4")
                },
                capture: "clients"),
            .until("3 clients", then: .down),
            .until("Token history · alice · CloudKit JS · Firefox", then: .down),
            .until("Token history · bob · pyicloud", then: .character("t")),
            .init(
                waitsFor: "bob's lag", condition: { $0.joined(separator: "\n").contains("up to date") && $0[1].contains("┌─ Clients ─") },
                key: .character("d"), capture: "token-history"),
            .until("╔═ Diagnostics", capture: "diagnostics", then: .enter),
            .until("lesson: syncscope lesson", capture: "diagnosis"),
        ])
        try Self.expectGolden("inspect-server-clients", screens["clients"], port: server.port)
        try Self.expectGolden("inspect-server-token-history", screens["token-history"], port: server.port)
        try Self.expectGolden("inspect-server-diagnostics", screens["diagnostics"], port: server.port)
        try Self.expectGolden("inspect-server-diagnosis", screens["diagnosis"], port: server.port)
    }

    /// The client list is live: a client that calls after the inspector opened appears, and its requests with it.
    @Test func aClientThatCallsWhileTheInspectorIsOpenAppears() async throws {
        let server = try await server()
        defer { server.stop() }
        let called = Mutex(false)
        let screens = try await inspect(server, steps: [
            .init(
                waitsFor: "an empty client list", condition: { $0.joined(separator: "\n").contains("(no client has called yet)") },
                action: {
                    let alice = DoctorTests.Script(server: server, token: server.aliceToken)
                    try await alice.makeZone()
                    _ = try await alice.fetch(from: nil)
                    called.withLock { $0 = true }
                }),
            .init(
                waitsFor: "alice's script and its fetch",
                condition: { lines in
                    let text = lines.joined(separator: "\n")
                    return called.withLock { $0 } && text.contains("alice · Python requests") && text.contains("POST changes/zone")
                },
                capture: "live"),
        ])
        let live = try #require(screens["live"]).joined(separator: "\n")
        #expect(live.contains("POST zones/modify"))
        // Its fetch from no token, given its first token.
        #expect(live.split(separator: "\n").contains { $0.contains("zone private/Z") && $0.contains(" none ") && $0.contains(" T1 ") }, "\(live)")
    }

    /// `n` renames the focused client: the name typed becomes the server's
    /// (every watcher's and the doctor's), and the client list shows it.
    @Test func nRenamesTheFocusedClientOnTheServer() async throws {
        let server = try await server()
        defer { server.stop() }
        let alice = DoctorTests.Script(server: server, token: server.aliceToken)
        try await alice.makeZone()
        let old = "alice · Python requests"
        var steps: [ScreenWaitBackend.Step] = [.until(old, then: .character("n"))]
        steps.append(.until("Rename \(old) to: \(old)"))
        for _ in old { steps.append(ScreenWaitBackend.Step(waitsFor: "the name being typed", condition: { _ in true }, key: .backspace)) }
        for character in "Anna's phone" { steps.append(ScreenWaitBackend.Step(waitsFor: "the name being typed", condition: { _ in true }, key: .character(character))) }
        steps.append(.until("Rename \(old) to: Anna's phone▏", capture: "typing", then: .enter))
        steps.append(.until("Renamed: Anna's phone.", capture: "renamed"))
        let screens = try await inspect(server, steps: steps)
        let renamed = try #require(screens["renamed"])
        #expect(renamed.contains { $0.contains("Anna's phone") && !$0.contains("Renamed") }, "the client list shows the new name: \(renamed.joined(separator: "\n"))")
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let clients = try await EventFeedReader(baseURL: url, adminToken: server.host.adminToken, container: EventFeedTests.container).clients()
        #expect(clients.map(\.name) == ["Anna's phone"])
    }

    /// A zone alice shares with bob, over raw HTTP: she makes Notes, saves a
    /// note and the zone's share (`cloudkit.zoneshare`, bob invited
    /// READ_WRITE), and bob accepts it by its short GUID.
    func sharedZone(_ server: LiveServer) async throws {
        let alice = DoctorTests.Script(server: server, token: server.aliceToken)
        try await alice.makeZone("Notes")
        #expect(try await alice.save(["n1"], zone: "Notes").status == 200)
        let saved = try await alice.post("records/modify", ZoneShareTests.shareSave(publicPermission: "NONE", participants: [("bob", "READ_WRITE")]))
        let guid = try #require((saved.json["records"] as? [[String: Any]])?.first?["shortGUID"] as? String, "\(saved.text)")
        let accepted = try await EventFeedTests.send(
            server, "POST", "/database/1/\(EventFeedTests.container)/development/public/records/accept", token: server.bobToken, userAgent: "pyicloud/1.3",
            json: #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#)
        #expect((accepted.json["results"] as? [[String: Any]])?.first?["participantStatus"] as? String == "ACCEPTED", "\(accepted.text)")
    }

    /// Every user's zones list their shares as the in-process inspector does:
    /// alice's Notes with its CKShare and both participants, bob's shared
    /// database with Notes "shared by alice". The share lines are not selectable.
    @Test func theZonesOfEveryUserListTheirSharesAndParticipants() async throws {
        let server = try await server()
        defer { server.stop() }
        try await sharedZone(server)
        let screens = try await inspect(server, steps: [
            .init(
                waitsFor: "alice's share and bob's shared zone",
                condition: { lines in
                    let text = lines.joined(separator: "\n")
                    return text.contains("⤷ CKShare, zone-wide") && text.contains("bob shared/Notes (alice)") && text.contains("⤷ shared by alice")
                        && text.components(separatedBy: "bob   READ_WRITE ACCEPTED PRIVATE_USER").count == 3
                        && text.contains("Records · alice private/Notes") && text.contains("n1")
                        // Both clients and alice's three requests, read from the feed.
                        && text.contains("bob · pyicloud") && text.components(separatedBy: "POST records/modify").count == 3
                },
                key: .character("z"), capture: "shares"),
            // Down from alice's Notes passes over its share lines to the next zone.
            .until("╔═ Zones in \(EventFeedTests.container)", then: .down),
            .until("Records · alice private/_defaultZone", then: .end),
            .until("Records · bob shared/Notes (alice)", capture: "shared", then: .up),
            .until("Records · bob private/_defaultZone"),
        ])
        try Self.expectGolden("inspect-server-zone-shares", screens["shares"], port: server.port)
        let shared = try #require(screens["shared"]).joined(separator: "\n")
        // bob reads alice's note in her zone, through his shared database.
        #expect(shared.contains("n1"), "\(shared)")
    }

    /// A wrong admin token and a server that is not there are said in words, before any screen.
    @Test func aWrongAdminTokenOrNoServerIsSaidClearly() async throws {
        let server = try await server()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        do {
            _ = try await ServerWatchWorld(serverURL: url, adminToken: server.aliceToken, container: EventFeedTests.container)
            Issue.record("a user's token watched the server")
        } catch {
            #expect(error.reason.contains("does not take this admin token"), "\(error.reason)")
            #expect(error.reason.contains("--admin-token"))
        }
        server.stop()
        let gone = try #require(URL(string: "http://127.0.0.1:1"))
        do {
            _ = try await ServerWatchWorld(serverURL: gone, adminToken: server.host.adminToken, container: EventFeedTests.container)
            Issue.record("a closed port was watched")
        } catch {
            #expect(error.reason.contains("Cannot reach the SyncScope server at http://127.0.0.1:1"), "\(error.reason)")
        }
    }

    // MARK: Goldens

    static let goldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

    /// The screen, its address's port written `PORT`, against `Goldens/NAME.txt`.
    static func expectGolden(_ name: String, _ lines: [String]?, port: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = try #require(lines, "the screen '\(name)' was never kept", sourceLocation: sourceLocation)
        let text = lines.map { $0.replacingOccurrences(of: "127.0.0.1:\(port)", with: "127.0.0.1:PORT") }.joined(separator: "\n") + "\n"
        let file = goldens.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["SYNCSCOPE_UPDATE_GOLDENS"] == "1" {
            try FileManager.default.createDirectory(at: goldens, withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "the screen differs from Goldens/\(name).txt:\n\(text)", sourceLocation: sourceLocation)
    }
}
