import Foundation
import SyncCore
import SyncNetwork
import SyncTestSupport
import SyncWire
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// `serve`'s event feed: every request, push step and change, read with the
/// server admin token through `admin/…/events`, one node or several.
@Suite struct EventFeedTests {
    static let container = "iCloud.com.example.Feed"
    static let database = "/database/1/\(container)/development/private"
    static let events = "/admin/1/\(container)/development/events"

    /// A request as a client sends it: its token, its User-Agent, maybe a device or the inspector's mark.
    static func send(
        _ server: LiveServer, _ method: String, _ path: String, token: String, userAgent: String = "python-requests/2.32.3", device: String? = nil,
        inspector: Bool = false, json: String? = nil
    ) async throws -> RawHTTP.Answer {
        var headers = [("Authorization", "Bearer \(token)"), ("User-Agent", userAgent)]
        if let device { headers.append(("X-SyncScope-Device", device)) }
        if inspector { headers.append(("X-SyncScope-Inspector", "1")) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await server.raw.exchange(RawHTTP.request(method, path, headers: headers, body: json.map { Data($0.utf8) }))
    }

    static func feed(_ server: LiveServer, _ query: String = "bodies=true", timeout: Double = 10) async throws -> WireServerEvents {
        let answer = try await send(server, "GET", "\(events)?\(query)", token: server.host.adminToken, userAgent: "syncscope", inspector: false)
        #expect(answer.status == 200, "\(answer.text)")
        return try WireJSON.decode(WireServerEvents.self, from: answer.body)
    }

    static let makeZone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#
    static func save(_ name: String) -> String {
        #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":1}}}}]}"#
    }

    @Test func everyRequestIsAnEventWithItsClientTokensStatusAndChanges() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3))
        defer { server.stop() }
        let alice = server.aliceToken
        #expect(try await Self.send(server, "POST", "\(Self.database)/zones/modify", token: alice, json: Self.makeZone).status == 200)
        #expect(try await Self.send(server, "POST", "\(Self.database)/records/modify", token: alice, json: Self.save("r1")).status == 200)
        let fetched = try await Self.send(server, "POST", "\(Self.database)/changes/zone", token: alice, json: #"{"zones":[{"zoneID":{"zoneName":"Z"}}]}"#)
        // An inspector's read, and bob from a browser with a refused call.
        _ = try await Self.send(server, "POST", "\(Self.database)/zones/list", token: alice, inspector: true, json: "{}")
        _ = try await Self.send(
            server, "POST", "\(Self.database)/changes/zone", token: server.bobToken, userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
            json: #"{"zones":[{"zoneID":{"zoneName":"Nowhere"}}],"syncToken":"x"}"#)

        let page = try await Self.feed(server)
        let requests = page.events.filter { $0.kind == "request" }
        #expect(requests.map(\.operation) == ["zones/modify", "records/modify", "changes/zone", "changes/zone"], "\(requests)")
        #expect(requests[0].clientName == "alice · Python requests" && requests[0].user == "alice")
        #expect(Set(requests.prefix(3).map(\.client)).count == 1, "one client: one token, one User-Agent")
        #expect(requests[3].clientName == "bob · CloudKit JS · Firefox")
        #expect(requests.allSatisfy { $0.status != nil && ($0.latencyMs ?? -1) >= 0 })
        // The token issued is the one the answer carries; the body is there on demand.
        let answer = try #require(fetched.json["zones"] as? [[String: Any]]).first
        #expect(requests[2].tokenOut == answer?["syncToken"] as? String && requests[2].tokenIn == nil)
        #expect(requests[2].request != nil && requests[2].answer != nil)
        // The changes, with the client that made them.
        let changes = page.events.filter { $0.kind == "change" }
        #expect(changes.map { "\($0.change ?? "") \($0.zone ?? "") \($0.recordName ?? "-")" } == ["zoneCreated Z -", "saved Z r1"])
        #expect(changes.allSatisfy { $0.clientName == "alice · Python requests" })
        // Without bodies=true no body is sent; the inspector's read comes only when asked for.
        let lean = try await Self.feed(server, "")
        #expect(lean.events.allSatisfy { $0.request == nil && $0.answer == nil })
        #expect(!lean.events.contains { $0.inspector == true })
        let all = try await Self.feed(server, "inspectorReads=true")
        #expect(all.events.filter { $0.inspector == true }.map(\.operation) == ["zones/list"])
        // The watcher's own reads are never events.
        #expect(!all.events.contains { $0.operation == "events" })
    }

    @Test func theFeedTakesTheAdminTokenAndClientsCanBeRenamed() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 4))
        defer { server.stop() }
        let refused = try await Self.send(server, "GET", Self.events, token: server.aliceToken)
        #expect(refused.status == 403 && refused.reason.contains("admin token"), "\(refused.text)")
        _ = try await Self.send(server, "POST", "\(Self.database)/zones/list", token: server.aliceToken, device: "iPad", json: "{}")
        let clientsPath = "/admin/1/\(Self.container)/development/clients"
        let listed = try await Self.send(server, "GET", clientsPath, token: server.host.adminToken)
        let clients = try WireJSON.decode(WireClients.self, from: listed.body).clients
        #expect(clients.map(\.name) == ["alice · iPad"], "\(listed.text)")
        let renamed = try await Self.send(
            server, "POST", clientsPath, token: server.host.adminToken, json: #"{"client":"\#(clients[0].client)","name":"Alice's iPad"}"#)
        #expect(renamed.status == 200, "\(renamed.text)")
        _ = try await Self.send(server, "POST", "\(Self.database)/zones/list", token: server.aliceToken, device: "iPad", json: "{}")
        let page = try await Self.feed(server)
        #expect(page.events.last?.clientName == "Alice's iPad")
        let unknown = try await Self.send(server, "POST", clientsPath, token: server.host.adminToken, json: #"{"client":"device:nobody","name":"x"}"#)
        #expect(unknown.status == 404, "\(unknown.text)")
    }

    @Test func theRingKeepsTheLatestEventsAndALongPollWaitsForTheNext() async throws {
        var options = ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 5)
        options.eventFeedSize = 4
        let server = try await LiveServer(options)
        defer { server.stop() }
        for _ in 0..<6 { _ = try await Self.send(server, "POST", "\(Self.database)/zones/list", token: server.aliceToken, json: "{}") }
        let page = try await Self.feed(server)
        #expect(page.events.map(\.seq) == [3, 4, 5, 6] && page.missed == 2 && page.next == 6)
        // Nothing newer: the poll waits until the next request, and answers it.
        let started = ContinuousClock.now
        async let waited = Self.feed(server, "after=6&timeout=30")
        try await Task.sleep(for: .milliseconds(200))
        _ = try await Self.send(server, "POST", "\(Self.database)/zones/list", token: server.aliceToken, json: "{}")
        let next = try await waited
        #expect(next.events.map(\.seq) == [7] && ContinuousClock.now - started < .seconds(25))
        // A poll with a timeout and nothing new answers no events when the time is up.
        let empty = try await Self.feed(server, "after=7&timeout=0.2")
        #expect(empty.events.isEmpty && empty.next == 7)
    }

    /// The feed lives as long as the server's process: a watcher's cursor from
    /// an earlier run is beyond every event of this one, and waiting for an event
    /// after it would show nothing for as long.
    @Test func aCursorOfAnEarlierRunIsAnsweredAtOnceFromTheFeedsStart() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 5))
        defer { server.stop() }
        for _ in 0..<2 { _ = try await Self.send(server, "POST", "\(Self.database)/zones/list", token: server.aliceToken, json: "{}") }
        let started = ContinuousClock.now
        let page = try await Self.feed(server, "after=500&timeout=30")
        #expect(page.events.map(\.seq) == [1, 2] && page.next == 2 && page.missed == 0)
        #expect(ContinuousClock.now - started < .seconds(25), "answered at once, not when the poll's time was up")
    }

    @Test func pushesAreEventsOfTheClientThatRegistered() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 6))
        defer { server.stop() }
        let alice = server.aliceToken
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
        // A web page registers for pushes and long-polls as CloudKit JS does (no device header); a script writes.
        let created = try await Self.send(server, "POST", "/database/1/\(Self.container)/development/tokens/create", token: alice, userAgent: firefox, json: "{}")
        let courier = try #require(created.json["webcourierURL"] as? String).split(separator: "/").last.map(String.init) ?? ""
        #expect(try await Self.send(server, "POST", "\(Self.database)/zones/modify", token: alice, json: Self.makeZone).status == 200)
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"Z"}}}]}"#
        #expect(try await Self.send(server, "POST", "\(Self.database)/subscriptions/modify", token: alice, userAgent: firefox, json: subscribe).status == 200)
        #expect(try await Self.send(server, "POST", "\(Self.database)/records/modify", token: alice, json: Self.save("a")).status == 200)
        let poll = "/device/1/\(Self.container)/development/webcourier/\(courier)"
        let pushed = try await Self.send(server, "GET", "\(poll)?timeout=10", token: alice, userAgent: firefox)
        #expect(pushed.status == 200 && !pushed.body.isEmpty, "\(pushed.text)")
        // The next poll acknowledges it by name.
        let nid = try #require((pushed.json["ck"] as? [String: Any])?["nid"] as? String)
        _ = try await Self.send(server, "GET", "\(poll)?timeout=0&lastNotificationID=\(nid)", token: alice, userAgent: firefox)
        let page = try await Self.feed(server)
        let pushes = page.events.filter { $0.kind == "push" }
        for action in ["created", "queued", "delivered", "acknowledged"] {
            #expect(pushes.contains { $0.action == action }, "no \(action) in \(pushes.map { $0.action ?? "" })")
        }
        let registration = try #require(page.events.first { $0.operation == "tokens/create" })
        #expect(registration.clientName == "alice · CloudKit JS · Firefox")
        for action in ["delivered", "acknowledged"] {
            #expect(pushes.first { $0.action == action }?.client == registration.client, "\(action)")
        }
        let polls = page.events.filter { $0.operation == "webcourier" }
        #expect(polls.count == 2 && polls.allSatisfy { $0.client == registration.client })
        #expect(page.events.first { $0.operation == "records/modify" }?.client != registration.client)
    }

    @Test func twoNodesOnASharedJournalMergeInCommitOrder() async throws {
        let journal = InMemorySharedJournal()
        var options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true)
        options.eventFeedSize = 1000
        let a = try await LiveServer(host: try await ServerHost.start(options: options, on: SharedJournalStore(journal: journal, options: options)))
        let b = try await LiveServer(host: try await ServerHost.start(options: options, on: SharedJournalStore(journal: journal, options: options)))
        defer {
            a.stop()
            b.stop()
        }
        #expect(try await Self.send(a, "POST", "\(Self.database)/zones/modify", token: a.aliceToken, json: Self.makeZone).status == 200)
        for index in 0..<6 {
            let node = index % 2 == 0 ? a : b
            #expect(try await Self.send(node, "POST", "\(Self.database)/records/modify", token: node.aliceToken, json: Self.save("r\(index)")).status == 200)
        }
        let feeds = [try await Self.feed(a), try await Self.feed(b)]
        #expect(feeds[0].node != feeds[1].node)
        let merged = WireServerEvents.merge(feeds.map(\.events))
        let saved = merged.filter { $0.kind == "change" && $0.change == "saved" }.compactMap(\.recordName)
        #expect(saved == (0..<6).map { "r\($0)" }, "\(merged.map { "\($0.node ?? "") \($0.position) \($0.recordName ?? $0.operation ?? "")" })")
        #expect(Set(merged.compactMap(\.node)) == Set(feeds.map(\.node)))
    }
}

/// An inspector's reads are marked and kept out of the request log, unless `--log-inspector-reads`.
@Suite struct InspectorReadsTests {
    func run(logInspectorReads: Bool) async throws -> (log: [String], feed: WireServerEvents) {
        var options = ServeOptions(port: 0, dataDirectory: nil, coalescingWindow: 0, seed: 7)
        options.logInspectorReads = logInspectorReads
        let captured = CapturedLog()
        let server = try await LiveServer(host: try await ServerHost.start(options: options), logger: captured.logger)
        defer { server.stop() }
        let base = URL(string: "http://127.0.0.1:\(server.port)")!
        let app = HTTPCloudService(baseURL: base, webAuthToken: server.aliceToken, userRecordName: "alice", container: EventFeedTests.container)
        var inspector = app
        inspector.isInspector = true
        _ = try await app.listRecordZones(in: .private)
        for _ in 0..<3 { _ = try await inspector.listRecordZones(in: .private) }
        let feed = try await EventFeedTests.feed(server, "inspectorReads=true")
        return (captured.all, feed)
    }

    @Test func inspectorReadsStayOutOfTheLogUnlessAskedFor() async throws {
        let quiet = try await run(logInspectorReads: false)
        #expect(quiet.log.filter { $0.contains("zones/list") }.count == 1, "\(quiet.log)")
        // Marked in the feed, whatever the log does; the feed's own reads are logged as an inspector's.
        #expect(quiet.feed.events.filter { $0.operation == "zones/list" }.map { $0.inspector == true } == [false, true, true, true])
        #expect(!quiet.log.contains { $0.contains("/events") })
        let loud = try await run(logInspectorReads: true)
        #expect(loud.log.filter { $0.contains("zones/list") }.count == 4, "\(loud.log)")
        #expect(loud.log.contains { $0.contains("/events") })
    }
}

@Suite struct ClientNameTests {
    @Test func theUserAgentSaysWhatTheAppIs() {
        #expect(ClientDirectory.appName("python-requests/2.32.3") == "Python requests")
        #expect(ClientDirectory.appName("pyicloud/1.0 python-requests/2.32") == "pyicloud")
        #expect(ClientDirectory.appName("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15") == "CloudKit JS · Safari")
        #expect(ClientDirectory.appName("Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36") == "CloudKit JS · Chrome")
        #expect(ClientDirectory.appName("curl/8.5.0") == "curl")
        #expect(ClientDirectory.appName(nil) == "web")
        #expect(ClientDirectory.appName("MyApp/3 (iOS)") == "MyApp")
        // `syncscope device` says its device's name.
        #expect(ClientDirectory.appName(DeviceUserAgent.make(deviceName: "iPad")) == "iPad")
        #expect(ClientDirectory.appName("syncscope (unknown version) curl/7.88.1") == "syncscope")
    }

    @Test func aDevicesUserAgentIsAHeaderValueThatGivesItsNameBack() {
        #expect(DeviceUserAgent.make(deviceName: "iPhone") == "SyncScope-Device/1 (iPhone)")
        #expect(DeviceUserAgent.deviceName(in: "SyncScope-Device/1 (iPhone)") == "iPhone")
        // Outside printable ASCII, and parentheses, become underscores; the name is cut to 40 characters.
        #expect(DeviceUserAgent.make(deviceName: "Zoë's (old)\niPad") == "SyncScope-Device/1 (Zo_'s _old__iPad)")
        let long = DeviceUserAgent.make(deviceName: String(repeating: "x", count: 60))
        #expect(DeviceUserAgent.deviceName(in: long) == String(repeating: "x", count: 40))
        #expect(DeviceUserAgent.deviceName(in: "MyApp/3 (iOS)") == nil)
        #expect(DeviceUserAgent.deviceName(in: "SyncScope-Device/1 ()") == nil)
    }

    /// `syncscope device` makes its push registration (`tokens/create`) and
    /// then names it in `X-SyncScope-Device` on every request: one app
    /// instance, so one client, as when a long-poll polls the registration.
    @Test func aRequestNamingARegistrationIsTheClientThatMadeIt() {
        let directory = ClientDirectory()
        func request(_ operation: String, agent: String, device: String? = nil, answer: String = "{}") -> ServerEvent {
            ServerEvent(time: 0, kind: .request(RequestEvent(
                method: "POST", path: "/p", operation: operation, user: "alice", isServerAdmin: false, device: device, userAgent: agent,
                isInspector: false, tokenIn: nil, tokenOut: nil, status: 200, latency: .zero, fault: nil, requestBody: Data(),
                answerBody: Data(answer.utf8))))
        }
        let (iPhone, mac) = (DeviceUserAgent.make(deviceName: "iPhone"), DeviceUserAgent.make(deviceName: "Mac"))
        var events = [
            request("tokens/create", agent: iPhone, answer: #"{"apnsToken":"reg-1"}"#),
            request("tokens/create", agent: mac, answer: #"{"apnsToken":"reg-2"}"#),
            request("tokens/register", agent: iPhone, device: "reg-1"),
            request("changes/database", agent: iPhone, device: "reg-1"),
            request("changes/database", agent: mac, device: "reg-2"),
            // A device that names itself, with no registration of the server's, is a client of its own.
            request("changes/database", agent: "MyApp/2 (iPadOS)", device: "bobs-iPad"),
        ]
        for index in events.indices { events[index].sequence = UInt64(index + 1) }
        directory.observe(events)
        #expect(directory.list.map(\.name) == ["alice · iPhone", "alice · Mac", "alice · bobs-iPad"])
        #expect(directory.list.map(\.requests) == [3, 2, 1])
        #expect(directory.client(ofDevice: "reg-2")?.name == "alice · Mac", "a push to the registration is the Mac's")
        // After a restart the server knows no registration of its earlier run: the device is named by what it says it is.
        let restarted = ClientDirectory()
        var later = [request("zones/list", agent: iPhone), request("changes/database", agent: iPhone, device: "reg-1")]
        for index in later.indices { later[index].sequence = UInt64(index + 1) }
        restarted.observe(later)
        #expect(restarted.list.map(\.name) == ["alice · iPhone"] && restarted.list.map(\.requests) == [2], "one client, as before the restart")
        #expect(restarted.client(ofDevice: "reg-1")?.name == "alice · iPhone", "and the pushes to its registration are its own")
    }

    @Test func twoClientsThatWouldReadTheSameAreNumbered() {
        let directory = ClientDirectory()
        func request(_ agent: String) -> ServerEvent {
            ServerEvent(time: 0, kind: .request(RequestEvent(
                method: "POST", path: "/p", operation: "zones/list", user: "alice", isServerAdmin: false, device: nil, userAgent: agent, isInspector: false,
                tokenIn: nil, tokenOut: nil, status: 200, latency: .zero, fault: nil, requestBody: Data(), answerBody: Data())))
        }
        var events = [request("python-requests/2.1"), request("python-requests/2.2"), request("python-requests/2.1")]
        for index in events.indices { events[index].sequence = UInt64(index + 1) }
        directory.observe(events)
        #expect(directory.list.map(\.name) == ["alice · Python requests", "alice · Python requests 2"])
        #expect(directory.list.map(\.requests) == [2, 1])
    }
}
