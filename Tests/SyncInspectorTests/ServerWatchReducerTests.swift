import SyncCore
import SyncDoctor
import SyncWire
import SyncWorlds
import Testing
@testable import SyncInspector

/// The update step of the inspector on a server, message by message
/// (TestStore): the feed's long-poll and the server's reads are effects,
/// their answers messages; one of each under way at a time.
@Suite struct ServerWatchReducerTests {
    static let path = "/database/1/iCloud.com.example.SyncScope/development/private/changes/zone"

    /// A watching state, 120×40, as the controller makes it for a server watched with its admin token.
    static func state() -> InspectorState {
        var state = HandBuiltWorld.state()
        state.screenSize = Size(width: 120, height: 40)
        state.watch.isOn = true
        state.watch.container = "iCloud.com.example.SyncScope"
        return state
    }

    /// A `changes/zone` of zone Z by `client` (`alice · pyicloud`), from `sent` (or no token), given `given`.
    static func fetch(_ seq: UInt64, client: String = "token:1", name: String = "alice · pyicloud", sent: String?, given: String, more: Bool = false) -> WireServerEvent {
        var event = WireServerEvent(seq: seq, time: 1_000 + Int64(seq), kind: "request")
        event.method = "POST"
        event.operation = "changes/zone"
        event.path = path
        event.user = "alice"
        event.client = client
        event.clientName = name
        event.status = 200
        event.tokenIn = sent
        event.tokenOut = given
        var asked: [String: JSONValue] = ["zoneID": .object(["zoneName": .string("Z")])]
        if let sent { asked["syncToken"] = .string(sent) }
        event.request = .object(["zones": .array([.object(asked)])])
        event.answer = .object(["zones": .array([.object([
            "zoneID": .object(["zoneName": .string("Z")]), "syncToken": .string(given), "moreComing": .bool(more), "records": .array([]),
        ])])])
        return event
    }

    static let zone = WatchedZone(user: "alice", scope: .private, zoneID: RecordZoneID(zoneName: "Z", ownerName: "alice"), recordCount: 2)

    /// A zone's share lines are rows of the zones pane the selection never
    /// rests on: keys go from zone to zone, and a list that shrank under the
    /// selection brings it back up to a zone, not onto a share line.
    @Test func theSelectionGoesFromZoneToZoneOverShareLines() {
        let share = ServerShare(owner: "alice", publicPermission: "NONE", shortGUID: "g1", participants: [
            .init(user: "alice", permission: "READ_WRITE", acceptanceStatus: "ACCEPTED", type: "OWNER"),
            .init(user: "bob", permission: "READ_WRITE", acceptanceStatus: "PENDING", type: "PRIVATE_USER"),
        ])
        var shared = Self.zone
        shared.shares = [share]
        let photos = WatchedZone(user: "alice", scope: .private, zoneID: RecordZoneID(zoneName: "Photos", ownerName: "alice"), recordCount: 0)
        var state = Self.state()
        state.watch.pane = .zones
        state.watch.readWaiting = true
        func answer(_ zones: [WatchedZone]) {
            state.watch.readWaiting = true
            let request = ServerWatchReducer.request(state)
            _ = ServerWatchReducer.reduce(&state, .watchRead(.success(ServerWatchReading(request: request, users: ["alice"], zones: zones, records: [], lags: []))))
        }
        answer([shared, photos])
        #expect(state.watch.zoneRows.count == 5)
        #expect(state.watch.zoneRows.compactMap { if case .share(let line) = $0 { line.text } else { nil } } == [
            "  ⤷ CKShare, zone-wide · public NONE · guid g1", "    alice READ_WRITE ACCEPTED OWNER (you)", "    bob   READ_WRITE PENDING PRIVATE_USER",
        ])
        #expect(state.watch.selectedZone == shared)
        _ = ServerWatchReducer.reduce(&state, .key(.down))
        #expect(state.watch.selectedZone == photos && state.watch.zoneTable.selection == 4)
        _ = ServerWatchReducer.reduce(&state, .key(.up))
        #expect(state.watch.selectedZone == shared && state.watch.zoneTable.selection == 0)
        _ = ServerWatchReducer.reduce(&state, .key(.end))
        #expect(state.watch.selectedZone == photos)
        // Photos is gone: the selection, past the end, comes up to Z over its share lines.
        answer([shared])
        #expect(state.watch.selectedZone == shared && state.watch.zoneTable.selection == 0)
    }

    @Test func startingAsksForTheFeedAndTheServerOnce() {
        var store = TestStore(Self.state())
        store.send(
            .started(size: Size(width: 120, height: 40), now: 7_000, offKeyPath: true),
            effects: [.readFeed(after: 0, timeout: 25, delay: 0), .readWatch(ServerWatchRequest(zone: nil, client: nil, user: nil, tokens: []))]
        ) {
            $0.realNow = 7_000
            $0.watch.feedWaiting = true
            $0.watch.readWaiting = true
        }
        // Keys and time ask for no feed read while one is under way, and the loop is not made to tick.
        store.send(.tick(now: 7_500)) { $0.realNow = 7_500 }
    }

    @Test func aPageOfEventsListsItsClientsAndAsksForTheNextPage() {
        var store = TestStore(Self.state())
        store.prepare(.started(size: Size(width: 120, height: 40), now: 0, offKeyPath: true))
        let events = [Self.fetch(1, sent: nil, given: "tokA"), Self.fetch(2, sent: "tokA", given: "tokB")]
        store.send(
            .feedRead(.success(WireServerEvents(node: "n", events: events, next: 2, missed: 0))),
            effects: [.readFeed(after: 2, timeout: 25, delay: 0)]
        ) {
            $0.watch.next = 2
            $0.watch.node = "n"
            $0.watch.events = events
            $0.watch.clients = [WatchedClient(key: "token:1", name: "alice · pyicloud", user: "alice", requests: 2)]
            $0.watch.clientIndex = ["token:1": 0]
            $0.watch.clientTable = TableState(selection: 0)
            $0.watch.zoneTable = TableState(selection: nil)
            $0.watch.recordTable = TableState(selection: nil)
            $0.watch.diagnosisTable = TableState(selection: nil)
            // The server read under way will be followed by another, for what this page changed.
            $0.watch.readAgain = true
            $0.needsRedraw = true
        }
        let history = store.state.watch.history
        #expect(history.map(\.presented) == [nil, "tokA"])
        #expect(history.map(\.cameBack) == [true, false])
        #expect(TokenLabels(history).label("tokB") == "T2")
    }

    @Test func aFeedThatCannotBeReadIsSaidAndAskedAgainAfterAPause() {
        var store = TestStore(Self.state())
        store.prepare(.started(size: Size(width: 120, height: 40), now: 0, offKeyPath: true))
        store.send(
            .feedRead(.failure(CloudError(.networkFailure, "The server at http://127.0.0.1:9 could not be reached."))),
            effects: [.readFeed(after: 0, timeout: 25, delay: 2000)]
        ) {
            $0.watch.problem = "The event feed cannot be read: The server at http://127.0.0.1:9 could not be reached. Trying again every 2 s."
            $0.needsRedraw = true
        }
        // Back: the problem goes (drawn again), with nothing new to show: no table has a row to select.
        store.send(.feedRead(.success(WireServerEvents(node: "n", events: [], next: 0, missed: 0))), effects: [.readFeed(after: 0, timeout: 25, delay: 0)]) {
            $0.watch.problem = nil
            $0.watch.node = "n"
            for table in [\ServerWatchState.clientTable, \.zoneTable, \.recordTable, \.diagnosisTable] { $0.watch[keyPath: table] = TableState(selection: nil) }
        }
    }

    /// `n` renames the focused client: its name is typed on the message line,
    /// Enter gives it to the server (an effect), Esc lets it go; the server's
    /// answer names the client in the list.
    @Test func nRenamesTheFocusedClientThroughTheServer() {
        var store = TestStore(Self.state())
        store.prepare(.started(size: Size(width: 120, height: 40), now: 0, offKeyPath: true))
        store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: [Self.fetch(1, sent: nil, given: "tokA")], next: 1, missed: 0))))
        store.prepare(.frameDrawn)
        store.send(.key(.character("n"))) {
            $0.watch.renaming = ClientRenaming(key: "token:1", from: "alice · pyicloud", text: "alice · pyicloud")
            $0.needsRedraw = true
        }
        // Typing edits the name; Esc lets it go.
        store.send(.key(.backspace)) { $0.watch.renaming?.text = "alice · pyiclou" }
        store.send(.key(.escape)) {
            $0.watch.renaming = nil
            $0.message = InspectorMessage("The name is as it was.")
        }
        // An empty name is not given.
        _ = store.prepare(.key(.character("n")))
        for _ in "alice · pyicloud" { _ = store.prepare(.key(.backspace)) }
        store.send(.key(.enter)) { $0.message = InspectorMessage("A client's name cannot be empty; type one, or Esc.") }
        for character in "Anna" { _ = store.prepare(.key(.character(character))) }
        store.send(.key(.enter), effects: [.renameClient(key: "token:1", name: "Anna")]) {
            $0.watch.renaming = nil
            $0.message = InspectorMessage("Renaming alice · pyicloud to Anna…")
        }
        let renamed = WireClient(client: "token:1", name: "Anna", user: "alice", userAgent: "pyicloud/1.3", firstSeen: 1_001, lastSeen: 1_001, requests: 1)
        store.send(.clientRenamed(.success([renamed]))) {
            $0.watch.clients[0].name = "Anna"
            $0.message = InspectorMessage("Renamed: Anna.")
        }
        store.send(.clientRenamed(.failure(CloudError(.invalidArguments, "A client's name is 1 to 80 bytes of text; got 81.")))) {
            $0.message = InspectorMessage("The client could not be renamed: A client's name is 1 to 80 bytes of text; got 81.")
        }
    }

    /// A server that started again has a new feed, numbered from 1 again: the
    /// cursor of the old one would skip its first events (or wait for ever).
    @Test func aServerThatStartedAgainIsReadFromItsFeedsStart() {
        var store = TestStore(Self.state())
        store.prepare(.started(size: Size(width: 120, height: 40), now: 0, offKeyPath: true))
        let before = [Self.fetch(1, sent: nil, given: "tokA"), Self.fetch(2, sent: "tokA", given: "tokB")]
        store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: before, next: 2, missed: 0))))
        // The new run's page, however it answered the old cursor, is not taken: the feed is read from its start.
        store.send(
            .feedRead(.success(WireServerEvents(node: "m", events: [Self.fetch(3, sent: "tokB", given: "tokC")], next: 3, missed: 0))),
            effects: [.readFeed(after: 0, timeout: 25, delay: 0)]
        ) {
            $0.watch.node = "m"
            $0.watch.next = 0
            $0.message = InspectorMessage("The server started again: its event feed is new, and is read from its start.")
            $0.needsRedraw = true
        }
        #expect(store.state.watch.events == before, "what was shown stays")
    }

    @Test func aReadOfTheServerFillsZonesRecordsAndLagsThenReadsWhatTheSelectionShowsNow() {
        var store = TestStore(Self.state())
        store.prepare(.started(size: Size(width: 120, height: 40), now: 0, offKeyPath: true))
        store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: [Self.fetch(1, sent: nil, given: "tokA")], next: 1, missed: 0))))
        let record = Record(recordID: RecordID(recordName: "n1", zoneID: Self.zone.zoneID), recordType: "Note")
        let asked = ServerWatchRequest(zone: nil, client: nil, user: nil, tokens: [])
        let reading = ServerWatchReading(
            request: asked, users: ["alice", "bob"], zones: [Self.zone], records: [],
            lags: [])
        // The first read knew no client and no zone: another follows, for alice's script's token and zone Z.
        let next = ServerWatchRequest(zone: Self.zone, client: "token:1", user: "alice", tokens: [.init(place: "zone private/Z", token: "tokA")])
        store.send(.watchRead(.success(reading)), effects: [.readWatch(next)]) {
            $0.watch.users = ["alice", "bob"]
            $0.watch.zones = [Self.zone]
            $0.watch.zoneTable = TableState(selection: 0)
            $0.watch.readAgain = false
            $0.watch.readWaiting = true
            $0.needsRedraw = true
        }
        let lag = WatchedLag(place: "zone private/Z", token: "tokA", changes: 3)
        store.send(.watchRead(.success(ServerWatchReading(request: next, users: ["alice", "bob"], zones: [Self.zone], records: [record], lags: [lag])))) {
            $0.watch.recordsZone = Self.zone
            $0.watch.records = [record]
            $0.watch.recordTable = TableState(selection: 0)
            $0.watch.lags = [lag]
            $0.watch.lagsClient = "token:1"
            $0.watch.readWaiting = false
        }
        #expect(lag.text == "behind by 3 changes")
        #expect(WatchedLag(place: "database private", token: "t", changes: 0).text == "up to date")
    }

    @Test func movingToAnotherClientReadsItsLagsAndEnterOpensARequest() {
        var store = TestStore(Self.state())
        store.prepare(.started(size: Size(width: 120, height: 40), now: 0, offKeyPath: true))
        let events = [Self.fetch(1, sent: nil, given: "tokA"), Self.fetch(2, client: "token:2", name: "alice · curl", sent: nil, given: "tokC")]
        store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: events, next: 2, missed: 0))))
        store.prepare(.watchRead(.failure(CloudError(.networkFailure, "gone"))))
        #expect(store.state.watch.problem == "The server cannot be read: gone")
        store.send(
            .key(.down),
            effects: [.readWatch(ServerWatchRequest(zone: nil, client: "token:2", user: "alice", tokens: [.init(place: "zone private/Z", token: "tokC")]))]
        ) {
            $0.watch.clientTable = TableState(selection: 1)
            $0.watch.readWaiting = true
            $0.needsRedraw = true
        }
        #expect(store.state.watch.focusedClient?.name == "alice · curl")
        store.send(.key(.character("e"))) {
            $0.watch.pane = .requests
            $0.needsRedraw = true
        }
        // With no line chosen, Enter opens the newest: the client's fetch.
        store.send(.key(.enter)) {
            $0.watch.detail = .event(seq: 2, node: nil)
        }
        let lines = ServerWatchView().detailLines(.event(seq: 2, node: nil), watch: store.state.watch, labels: TokenLabels(store.state.watch.history))
        #expect(lines.first == "POST \(Self.path) → 200")
        #expect(lines.contains("token given: T1 tokC"))
        #expect(lines.contains("request:") && lines.contains("answer:"))
        store.send(.key(.escape)) { $0.watch.detail = nil }
        store.send(.key(.character("q")), effects: [.quit]) { _ in }
    }

    @Test func aPushDeliveredIsMarkedByWhetherTheClientFetchedAfterIt() {
        var push = WireServerEvent(seq: 2, time: 1_002, kind: "push")
        push.action = "delivered"
        push.client = "token:1"
        push.notificationIDs = ["n-1"]
        var save = Self.fetch(3, sent: nil, given: "x")
        save.operation = "records/modify"
        save.status = 409
        save.errorCode = "CONFLICT"
        var again = save
        again.seq = 4
        let lines = ClientTraffic.of("token:1", in: [Self.fetch(1, sent: nil, given: "tokA"), push, save, again, Self.fetch(5, sent: "tokA", given: "tokB")])
        #expect(lines.map(\.note) == [nil, "fetched after", nil, "retry", nil])
        #expect(lines[1].what == "push 1 notification")
        #expect(ClientTraffic.of("token:1", in: [push]).map(\.note) == ["no fetch after"])
    }

    /// Scrolling a request's detail stops at its last screenful: Up after
    /// Down pressed past the end moves the text at once (it used to take as
    /// many Ups as there had been Downs past the end before anything moved).
    @Test func scrollingADetailStopsAtItsEndsSoUpMovesAtOnce() {
        var store = TestStore(Self.state())
        var event = Self.fetch(1, sent: nil, given: "tokA")
        event.answer = .object(["records": .array((0..<120).map { .string("record-\($0)") })])
        _ = store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: [event], next: 1, missed: 0))))
        _ = store.prepare(.key(.character("e")))
        _ = store.prepare(.key(.enter))
        #expect(store.state.watch.detail == .event(seq: 1, node: nil))
        let view = ServerWatchView()
        for _ in 0..<300 { _ = store.prepare(.key(.down)) }
        let bottom = store.state.watch.detailScroll
        #expect(bottom > 0)
        let atBottom = view.render(store.state, size: store.state.screenSize)
        // The last line of the answer is on screen, and more Downs change nothing.
        #expect(atBottom.lines().contains { $0.contains("]") })
        _ = store.prepare(.key(.pageDown))
        #expect(store.state.watch.detailScroll == bottom)
        _ = store.prepare(.key(.up))
        #expect(store.state.watch.detailScroll == bottom - 1)
        #expect(view.render(store.state, size: store.state.screenSize).lines() != atBottom.lines())
        for _ in 0..<300 { _ = store.prepare(.key(.up)) }
        #expect(store.state.watch.detailScroll == 0)
    }

    /// The zones pane is one container's: its title names it, and the
    /// environment when it is production (clients may use other containers).
    @Test func theZonesPaneNamesTheContainerItShows() {
        var state = Self.state()
        state.watch.environment = "development"
        let zonesTitle = { (state: InspectorState) in ServerWatchView().render(state, size: state.screenSize).lines().first { $0.contains("Zones") } ?? "" }
        #expect(zonesTitle(state).contains("Zones in iCloud.com.example.SyncScope ─"))
        state.watch.container = "com.apple.notes"
        state.watch.environment = "production"
        #expect(zonesTitle(state).contains("Zones in com.apple.notes · production ─"))
    }

    /// The message line is one line: a problem too long for it ends with "…"
    /// where it is cut (the greeting fits a 120-column terminal whole: see the goldens).
    @Test func theMessageLineMarksACutSentence() {
        var state = Self.state()
        state.watch.problem = "The server at http://127.0.0.1:8400 could not be reached: " + String(repeating: "the connection was refused, ", count: 6)
        let lines = ServerWatchView().render(state, size: state.screenSize).lines()
        let problem = lines.first { $0.contains("✗ The server at") } ?? ""
        #expect(String(problem.reversed().drop { $0 == " " }.reversed()).hasSuffix("…"), "\(problem)")
    }

    /// A client's token for a zone shared with it is asked about in that zone,
    /// which is its owner's (the request's `ownerRecordName`), not the client's own.
    @Test func aSharedZonesTokenIsAskedAboutInItsOwnersZone() {
        var store = TestStore(Self.state())
        var shared = Self.fetch(1, client: "token:2", name: "bob · pyicloud", sent: nil, given: "tokS")
        shared.user = "bob"
        shared.path = Self.path.replacingOccurrences(of: "/private/", with: "/shared/")
        shared.request = .object(["zones": .array([.object(["zoneID": .object(["zoneName": .string("Z"), "ownerRecordName": .string("alice")])])])])
        _ = store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: [shared], next: 1, missed: 0))))
        let request = ServerWatchReducer.request(store.state)
        #expect(request.user == "bob")
        #expect(request.tokens == [ServerWatchRequest.Place(place: "zone shared/Z", token: "tokS", zoneOwner: "alice")])
    }

    /// The focused client's history and traffic are worked out when its
    /// events change or the focus moves, and kept otherwise: a page of
    /// another client's events or a frame drawn leaves them as they were,
    /// and what is kept always equals what the events say.
    @Test func theFocusedClientsViewsAreKeptUntilItsEventsChange() {
        var store = TestStore(Self.state())
        func page(_ events: [WireServerEvent]) {
            _ = store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: events, next: events.last?.seq ?? 0, missed: 0))))
        }
        func fresh(_ watch: ServerWatchState) -> WatchFocus {
            WatchFocus(of: watch.focusedClient?.key ?? "", version: 0, container: watch.container, in: watch.events)
        }
        page([Self.fetch(1, sent: nil, given: "T1"), Self.fetch(2, sent: "T1", given: "T2")])
        #expect(store.state.watch.focusedClient?.key == "token:1")
        let kept = store.state.watch.focusCache.focus
        #expect(kept?.history.map(\.issued) == ["T1", "T2"])
        #expect(kept?.traffic.count == 2)

        // Another client's page: alice's views are not worked out again.
        page([Self.fetch(3, client: "token:2", name: "bob · pyicloud", sent: nil, given: "B1")])
        #expect(store.state.watch.focusCache.focus?.version == kept?.version)
        _ = store.prepare(.frameDrawn)
        #expect(store.state.watch.focusCache.focus?.version == kept?.version)

        // Her own: they are, and hold her new fetch.
        page([Self.fetch(4, sent: "T2", given: "T3")])
        #expect(store.state.watch.focusCache.focus?.version != kept?.version)
        #expect(store.state.watch.history.map(\.issued) == ["T1", "T2", "T3"])
        #expect(store.state.watch.history.map(\.cameBack) == [true, true, false])
        #expect(store.state.watch.history == fresh(store.state.watch).history)

        // The focus moves to bob: his views.
        _ = store.prepare(.key(.down))
        #expect(store.state.watch.focusedClient?.key == "token:2")
        #expect(store.state.watch.focusCache.focus?.client == "token:2")
        #expect(store.state.watch.history.map(\.issued) == ["B1"])
        #expect(store.state.watch.traffic == fresh(store.state.watch).traffic)

        // A focus set without the reducer is not shown stale.
        var moved = store.state
        moved.watch.clientTable.selection = 0
        #expect(moved.watch.history.map(\.issued) == ["T1", "T2", "T3"])
    }

    /// Past the events the inspector keeps, the oldest go, and the focused
    /// client's history with them, as if worked out from the events kept.
    @Test func eventsLetGoLeaveTheFocusedClientsHistory() {
        var store = TestStore(Self.state())
        let limit = ServerWatchState.eventLimit
        let events = (1...limit).map { Self.fetch(UInt64($0), sent: $0 == 1 ? nil : "T\($0 - 1)", given: "T\($0)") }
        _ = store.prepare(.feedRead(.success(WireServerEvents(node: "n", events: events, next: UInt64(limit), missed: 0))))
        #expect(store.state.watch.history.count == limit)
        _ = store.prepare(.feedRead(.success(WireServerEvents(
            node: "n", events: [Self.fetch(UInt64(limit + 1), sent: "T\(limit)", given: "T\(limit + 1)")], next: UInt64(limit + 1), missed: 0))))
        #expect(store.state.watch.history.count == limit)
        #expect(store.state.watch.history.first?.presented == "T1")
        #expect(store.state.watch.history.last?.issued == "T\(limit + 1)")
    }
}
