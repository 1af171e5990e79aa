import SyncCore
@testable import SyncServer
import SyncSimulation
@testable import SyncWorlds
import Testing
@testable import SyncInspector

/// The "What happened" pane: focus, zoom, scroll, filters, folded fetches
/// and readable lines; keys driven on states built from the demo world.
@Suite("Event log")
struct EventLogTests {
    /// A state at `size` holding the demo world's events (the keys under test change only the state).
    func demoState(_ size: Size = Size(width: 80, height: 24)) async throws -> InspectorState {
        let inspector = try await makeInspector(size: size)
        var state = inspector.state
        state.needsRedraw = false
        return state
    }

    func handle(_ keys: KeyEvent..., state: inout InspectorState) {
        for key in keys { _ = InspectorKeys.handle(key, state: &state) }
    }

    static var epochMilliseconds: Regex<Substring> { /17\d{11}/ }
    static var uuid: Regex<Substring> { /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}/ }

    @Test func aFetchFoldsIntoOneLineThatEnterOpens() async throws {
        var state = try await demoState(Size(width: 120, height: 40))
        let events = state.snapshot.events
        let lines = EventLog.lines(events, state: state.eventLog)
        let fetches = lines.filter { if case .fetch = $0.kind { true } else { false } }
        #expect(!fetches.isEmpty)
        #expect(lines.count < events.count - 20, "a fetch's many events are one line each")
        for fetch in fetches {
            // One device's fetch events, and nothing else, in each folded line.
            let devices = Set(fetch.members.map { events[$0].device })
            #expect(devices.count == 1)
            #expect(fetch.members.allSatisfy { EventCategory.of(events[$0]) == .fetch })
        }
        let first = try #require(fetches.first)
        let summary = EventLog.text(first, events: events, devices: state.snapshot.devices)
        #expect(summary.hasPrefix("▸ Mac: fetch run #1 (push): 4 tokens, applied 6 saved, 0 deleted in Notes, Photos, done"), "\(summary)")

        // Focus the log, select that fetch and open it: its events follow it, indented.
        handle(.tab, .tab, .tab, .tab, state: &state)
        #expect(state.pane == .events)
        let index = try #require(lines.firstIndex(of: first))
        state.eventLog.selectedEvent = events[first.first].number
        handle(.enter, state: &state)
        #expect(state.eventLog.expanded == [events[first.first].number])
        let opened = EventLog.lines(events, state: state.eventLog)
        #expect(opened.count == lines.count + first.members.count)
        #expect(opened[index].kind == .fetch(expanded: true))
        #expect(opened[index + 1 ... index + first.members.count].allSatisfy { $0.kind == .member })
        #expect(EventLog.text(opened[index + 1], events: events, devices: state.snapshot.devices).hasPrefix("  Mac: "))
        // Enter on one of its lines closes it.
        state.eventLog.selectedEvent = events[opened[index + 2].first].number
        handle(.enter, state: &state)
        #expect(state.eventLog.expanded.isEmpty)
    }

    @Test func linesReadWithoutEpochMillisecondsOrUUIDs() async throws {
        let state = try await demoState()
        let events = state.snapshot.events
        #expect(events.contains { $0.description.contains(Self.uuid) }, "the raw events do hold UUIDs")
        #expect(events.contains { $0.description.contains(Self.epochMilliseconds) }, "and epoch milliseconds")
        var open = state.eventLog
        open.expanded = Set(events.map(\.number))
        for line in EventLog.lines(events, state: open) {
            let text = EventLog.text(line, events: events, devices: state.snapshot.devices)
            #expect(!text.contains(Self.uuid), "\(text)")
            #expect(!text.contains(Self.epochMilliseconds), "\(text)")
        }
        // Push lines name devices, not their IDs, and say durations.
        let texts = events.map { EventLog.text($0, devices: state.snapshot.devices) }
        #expect(texts.contains { $0.hasPrefix("push: #") && $0.contains(" on its way to Mac, arrives in 250ms") })
        #expect(texts.contains { $0.hasPrefix("Mac: push delivered after 250ms: private database via private-changes #") })
        #expect(!texts.contains { $0.contains("alice-Mac") })
        #expect(EventLog.time(1_767_225_602_250, wide: true) == "00:00:02.250")
        #expect(EventLog.time(1_767_225_602_005, wide: false) == "00:02.005")
    }

    @Test func theLogIsReachedWithEAt80x24ZoomedAndScrolls() async throws {
        var state = try await demoState()
        #expect(state.layout.events == nil, "80×24 has no room for the log beside the panes")
        #expect(!state.tabOrder.contains(.events))
        handle(.character("E"), state: &state)
        #expect(state.pane == .events && state.zoomed)
        let layout = state.layout
        #expect(layout.events == Rect(x: 0, y: 1, width: 80, height: 20))
        #expect(layout.zones.isEmpty && layout.records.isEmpty)
        // It follows the newest line; k scrolls back, G follows again.
        #expect(state.eventLog.isFollowing)
        handle(.character("k"), .character("k"), state: &state)
        let events = state.snapshot.events
        let lines = EventLog.lines(events, state: state.eventLog)
        #expect(state.eventLog.selectedEvent == events[lines[lines.count - 3].first].number)
        handle(.pageUp, state: &state)
        let selected = try #require(EventLog.selectedLine(lines, events: events, state: state.eventLog))
        #expect(selected == lines.count - 3 - layout.visibleRows(of: .events))
        handle(.character("G"), state: &state)
        #expect(state.eventLog.isFollowing)
        // j past the newest line follows again.
        handle(.character("k"), .character("j"), .character("j"), state: &state)
        #expect(state.eventLog.isFollowing)
        // Esc (or Z) gives the panes back.
        handle(.escape, state: &state)
        #expect(!state.zoomed && state.pane == .zones)
        #expect(state.needsRedraw)
    }

    @Test func kAndVFilterByKindAndDevice() async throws {
        var state = try await demoState(Size(width: 120, height: 40))
        handle(.character("E"), state: &state)
        #expect(state.pane == .events && !state.zoomed, "on a tall screen the log is already on screen")
        let events = state.snapshot.events
        handle(.character("K"), state: &state)
        #expect(state.eventLog.category == .fetch)
        #expect(state.message?.text == "What happened: only fetches (K: next kind).")
        handle(.character("K"), state: &state)
        #expect(state.eventLog.category == .push)
        for line in EventLog.lines(events, state: state.eventLog) {
            #expect(line.members.allSatisfy { EventCategory.of(events[$0]) == .push })
        }
        handle(.character("V"), state: &state)
        #expect(state.eventLog.device == "iPhone")
        let lines = EventLog.lines(events, state: state.eventLog)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { events[$0.first].device == "iPhone" && EventCategory.of(events[$0.first]) == .push })
        #expect(EventLog.title(state.eventLog, width: 120) == "What happened (only iPhone, pushes, newest last)")
        // Every kind, then every device, again.
        for _ in EventCategory.allCases.dropFirst() { handle(.character("K"), state: &state) }
        #expect(state.eventLog.category == nil)
        for _ in state.snapshot.devices { handle(.character("V"), state: &state) }
        #expect(state.eventLog.device == nil)
    }

    @Test func theZoomedLogAt80x24() async throws {
        let inspector = try await makeInspector()
        inspector.view = InspectorView(theme: .colored)
        await inspector.press(.character("E"), .character("k"), .character("k"), .character("k"), .enter)
        try ScreenGolden.check(inspector.frame(), title: "what happened zoomed · colored", file: "what-happened-zoomed-80x24-colored.golden")
        let screen = inspector.lines.joined(separator: "\n")
        #expect(screen.contains("▾ Mac: fetch run #2 (push)"), "\(screen)")
        #expect(inspector.lines[21].hasPrefix(" G newest  Enter open ▸  K kind  V device  Esc unzoom"), "\(screen)")
    }

    @Test func theLessonsEventPaneShowsNoEpochMilliseconds() throws {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1), screenSize: Size(width: 80, height: 24))
        state.snapshot.lesson = LessonStatus(
            title: "t", stepsRun: 1, stepCount: 2, narrative: nil, lastStep: [], nextStep: "x", failure: nil, outline: ["a", "b"])
        let notification = CloudNotification.database(DatabaseNotification(
            notificationID: "527C9731-CF95-4F8C-D44F-4E2D14EB478A", subscriptionID: "private-changes", containerIdentifier: "c",
            databaseScope: .private))
        let push = PushEvent(time: 1_767_225_600_000, kind: .queued(deviceID: "alice-Mac", notificationID: notification.notificationID, arrivesAt: 1_767_225_600_250))
        state.snapshot.events = [WorldEvent(number: 1, time: 1_767_225_600_000, device: nil, kind: .push(push))]
        state.snapshot.devices = [DeviceSummary(
            name: "Mac", user: "alice", deviceID: "alice-Mac", isOnline: true, autoFetchOnPush: true, pendingChanges: 0, fetchRuns: 0)]
        let frame = InspectorView().render(state, size: state.screenSize)
        let area = try #require(state.layout.events)
        let text = (area.y..<area.maxY).map { y in (area.x..<area.maxX).map { frame[x: $0, y: y].text }.joined() }.joined(separator: "\n")
        // Beside the narration the log is narrow: the line wraps whole rather than being cut.
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "│" }).joined(separator: " ")
        #expect(words.contains("push: #527c on its way to Mac, arrives in 250ms"), "\(text)")
        #expect(!text.contains("1767225600"))
    }
}
