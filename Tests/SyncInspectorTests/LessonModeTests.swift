import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// Lesson mode on its own (the reducer) and on the screen (whole frames).
@Suite("Lesson mode")
struct LessonModeTests {
    func makeLesson(size: Size = Size(width: 80, height: 24), clock: FakeRealClock = FakeRealClock()) async throws -> InspectorController {
        let scenario = try ScenarioParser.parse(yaml: tinyLessonYAML, fileName: "tiny.yaml")
        let lesson = try LessonSession(scenario: scenario)
        return await InspectorController(simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: size, realClock: clock)
    }

    /// Cells drawn with a double-line top-left corner: one per focused pane.
    func focusedPanes(_ inspector: InspectorController) -> Int {
        inspector.lines.joined().filter { $0 == "╔" }.count
    }

    // MARK: The reducer

    @Test func aStepMovesTheFocusToItsDeviceUnlessPinned() {
        var mode = LessonModeState()
        let first = mode.stepRan(device: "Mac", touched: [.records], devices: ["iPhone", "Mac"], now: 10)
        #expect(first == 1)
        #expect(mode.highlighted == [.records])
        #expect(mode.highlightUntil == 10 + LessonModeState.highlightDuration)
        mode.followsSteps = false
        let second = mode.stepRan(device: "Mac", touched: [], devices: ["iPhone", "Mac"], now: 20)
        #expect(second == nil)
        #expect(mode.highlightUntil == nil)
    }

    @Test func theHighlightGoesWhenItsTimeIsUp() {
        var mode = LessonModeState()
        _ = mode.stepRan(device: nil, touched: [.zones, .tokens], devices: [], now: 1_000)
        let early = mode.expireHighlight(now: 1_000 + LessonModeState.highlightDuration - 1)
        #expect(!early)
        #expect(mode.highlighted == [.zones, .tokens])
        let due = mode.expireHighlight(now: 1_000 + LessonModeState.highlightDuration)
        #expect(due)
        #expect(mode.highlighted.isEmpty)
        #expect(mode.highlightUntil == nil)
    }

    /// After looking at another pane, Enter still runs the next step (issue
    /// 27: a teacher pressed Tab up to five times to get back); only the
    /// event log keeps its own Enter (opening a fetch).
    @Test func enterRunsAStepFromAnyPaneButTheLog() throws {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1))
        state.snapshot.lesson = LessonStatus(
            title: "t", stepsRun: 2, stepCount: 5, narrative: nil, lastStep: [], nextStep: "x", failure: nil,
            outline: ["a", "b", "c", "d", "e"])
        #expect(LessonMode.handle(.enter, state: &state) == [.lessonNext])
        #expect(LessonMode.handle(.tab, state: &state) == [])
        #expect(!state.lessonMode.narrativeFocused)
        #expect(state.pane == .zones)
        #expect(LessonMode.handle(.enter, state: &state) == [.lessonNext])
        state.pane = .records
        #expect(LessonMode.handle(.enter, state: &state) == [.lessonNext])
        state.pane = .events
        #expect(LessonMode.handle(.enter, state: &state) == nil)  // the log's Enter opens a fetch
        state.pane = .zones
        for _ in 0..<3 { _ = InspectorKeys.handle(.tab, state: &state) }
        #expect(state.pane == .notifications)
        _ = InspectorKeys.handle(.tab, state: &state)
        #expect(state.lessonMode.narrativeFocused)
        _ = InspectorKeys.handle(.backTab, state: &state)
        #expect(state.pane == .notifications && !state.lessonMode.narrativeFocused)
    }

    @Test func pStepsBackAndTheOutlineJumps() {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1))
        state.snapshot.lesson = LessonStatus(
            title: "t", stepsRun: 3, stepCount: 5, narrative: nil, lastStep: [], nextStep: "x", failure: nil,
            outline: ["a", "b", "c", "d", "e"])
        #expect(InspectorKeys.handle(.character("p"), state: &state) == [.lessonGoTo(stepsRun: 2)])
        #expect(InspectorKeys.handle(.character("t"), state: &state) == [])
        #expect(state.lessonMode.outlineSelection == 2)  // the latest step run
        _ = InspectorKeys.handle(.character("j"), state: &state)
        _ = InspectorKeys.handle(.character("j"), state: &state)
        _ = InspectorKeys.handle(.character("j"), state: &state)
        #expect(state.lessonMode.outlineSelection == 4)  // not past the last step
        #expect(InspectorKeys.handle(.enter, state: &state) == [.lessonGoTo(stepsRun: 5)])
        #expect(state.lessonMode.outlineSelection == nil)
        state.snapshot.lesson?.stepsRun = 0
        #expect(InspectorKeys.handle(.character("p"), state: &state) == [])
        #expect(state.message?.text.contains("start of the lesson") == true)
    }

    @Test func mAndTheDeviceKeysPinTheFocusedDevice() {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1))
        state.snapshot.lesson = LessonStatus(title: "t", stepsRun: 0, stepCount: 1, narrative: nil, lastStep: [], nextStep: nil, failure: nil)
        _ = InspectorKeys.handle(.character("m"), state: &state)
        #expect(!state.lessonMode.followsSteps)
        _ = InspectorKeys.handle(.character("m"), state: &state)
        #expect(state.lessonMode.followsSteps)
        _ = InspectorKeys.handle(.character("2"), state: &state)
        #expect(!state.lessonMode.followsSteps)
    }

    // MARK: On screen

    @Test func theFocusedDeviceFollowsTheStepsUntilPinned() async throws {
        let inspector = try await makeLesson()
        for _ in 0..<6 { await inspector.press(.enter) }  // …the Mac's fetch
        #expect(inspector.state.device?.name == "Mac")
        #expect(inspector.lines[0].contains("╔") == false)
        await inspector.press(.character("b"))
        await inspector.press(.character("2"))  // pin the Mac
        for _ in 0..<4 { await inspector.press(.enter) }  // the iPhone's steps
        #expect(inspector.state.device?.name == "Mac")
        await inspector.press(.character("m"))
        await inspector.press(.enter, .enter)  // say, then the Mac's fetch
        #expect(inspector.state.device?.name == "Mac")
        await inspector.press(.character("p"), .character("p"), .character("p"))  // back to the send
        #expect(inspector.state.device?.name == "iPhone")
    }

    @Test func onlyOnePaneIsDrawnFocusedAndEnterWorksFromAnyPane() async throws {
        let inspector = try await makeLesson()
        #expect(focusedPanes(inspector) == 1)
        #expect(inspector.lines[inspector.state.layout.lesson!.y].hasPrefix("╔═ Lesson · step 0 of 8 · A tiny lesson"))
        await inspector.press(.tab)
        #expect(focusedPanes(inspector) == 1)
        #expect(inspector.lines[1].hasPrefix("╔═ Zones seen by"), "\(inspector.lines[1])")
        await inspector.press(.enter)
        #expect(inspector.state.snapshot.lesson?.stepsRun == 1)
        let lessonTop = inspector.lines[inspector.state.layout.lesson!.y]
        #expect(lessonTop.hasPrefix("┌─ Lesson · step 1 of 8 · A tiny lesson"))
        #expect(inspector.lines.joined(separator: "\n").contains("Enter: createZone:"))
        // From the event log, the lesson pane says how to go on.
        await inspector.press(.character("E"))
        #expect(inspector.state.pane == .events && inspector.state.zoomed)
        await inspector.press(.escape, .character("E"))
        #expect(!inspector.state.zoomed && inspector.state.pane == .zones)
        await inspector.press(.backTab)
        #expect(inspector.state.lessonMode.narrativeFocused)
        await inspector.press(.enter)
        #expect(inspector.state.snapshot.lesson?.stepsRun == 2)
    }

    @Test func theEventLogStaysVisibleBesideTheLessonPane() async throws {
        let inspector = try await makeLesson()
        for _ in 0..<4 { await inspector.press(.enter) }
        let events = try #require(inspector.state.layout.events)
        let lesson = try #require(inspector.state.layout.lesson)
        #expect(events.y == lesson.y && events.x == lesson.maxX)
        let rows = inspector.lines[events.y..<events.maxY].map { String($0.dropFirst(events.x)) }
        #expect(rows[0].hasPrefix("┌─ Events ─"))
        #expect(rows.contains { $0.contains("iPhone: send pending changes") }, "\(rows.joined(separator: "\n"))")
    }

    @Test func whatAStepChangedIsHighlightedForAMoment() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeLesson(size: Size(width: 100, height: 30), clock: clock)
        for _ in 0..<6 { await inspector.press(.enter) }  // the Mac's fetch: zones, records, tokens
        let layout = inspector.state.layout
        func marked(_ rect: Rect) -> Bool {
            String(inspector.lines[rect.y].dropFirst(rect.x).prefix(rect.width)).contains("◆ changed")
        }
        #expect(marked(layout.zones) || marked(layout.records))
        #expect(marked(layout.tokens))
        #expect(!marked(layout.notifications))
        #expect(inspector.state.lessonMode.highlightUntil == clock.now() + LessonModeState.highlightDuration)
    }

    @Test func theHighlightGoesInTheRunLoop() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeLesson(size: Size(width: 100, height: 30), clock: clock)
        let backend = TestBackend(size: Size(width: 100, height: 30), script: [
            .key(.enter), .key(.enter), .wait, .key(.character("q")),
        ])
        var sawMark: [Bool] = []
        backend.onWait = { milliseconds in
            sawMark.append(backend.screen.lines().joined().contains("◆ changed"))
            clock.advance(by: Milliseconds(milliseconds))
        }
        try await inspector.run(backend: backend)
        #expect(sawMark == [true])
        #expect(!backend.screen.lines().joined().contains("◆ changed"))
        #expect(backend.requestedTimeouts[2] == Int(LessonModeState.highlightDuration))
    }

    @Test func stepBackRebuildsTheWorldToTheStepBefore() async throws {
        let inspector = try await makeLesson()
        for _ in 0..<6 { await inspector.press(.enter) }
        let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: notes).count == 1)
        let before = inspector.simulation
        await inspector.press(.character("p"))
        #expect(inspector.simulation !== before)
        #expect(inspector.state.snapshot.lesson?.stepsRun == 5)
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: notes).isEmpty == true)
        #expect(inspector.simulation.device(named: "iPhone")?.cachedRecords(in: notes).count == 1)
        #expect(inspector.state.message?.text.hasPrefix("Rebuilt the world and ran steps 1 to 5 of 8") == true)
        #expect(inspector.lines.joined(separator: "\n").contains("The Mac fetches the zone with no token."))
        await inspector.press(.enter)
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: notes).count == 1)
    }

    @Test func theOutlineListsTheStepsWithTheCurrentOneMarked() async throws {
        let inspector = try await makeLesson()
        for _ in 0..<3 { await inspector.press(.enter) }
        await inspector.press(.character("t"), .character("j"))
        #expect(inspector.lines == [
            " SyncScope │ 1 iPhone (alice) │ 2 Mac (alice) │                                 ",
            "┌╔═ Steps of A tiny lesson ═══════════════════════════════════════════════════╗┐",
            "│║ ✓   1  say: The iPhone creates Notes and saves a note.                     ║│",
            "│║ ✓   2  createZone: iPhone creates zone Notes                               ║│",
            "│║ ▶   3  save: iPhone saves note-1 (Note) in Notes: title=\"Groceries\"        ║│",
            "│║  ›  4  send: iPhone sends its pending changes                              ║│",
            "│║     5  say: The Mac fetches the zone with no token.                        ║│",
            "└║     6  fetch: Mac fetches the changes of zone Notes from no token          ║┘",
            "┌║     7  expect cache (Mac), line 16                                         ║┐",
            "│║     8  expect cache (Mac), line 17                                         ║│",
            "│║                                                                            ║│",
            "│║                                                                            ║│",
            "└║                                                                            ║┘",
            "╔║                                                                            ║┐",
            "║║                                                                            ║│",
            "║║                                                                            ║│",
            "║║                                                                            ║│",
            "║║                                                                            ║│",
            "║║                                                                            ║│",
            "║║                                                                            ║│",
            "╚║                                                                            ║┘",
            " ║ j/k choose · Enter: go to that step (the world is rebuilt up to it) · Esc… ║ ",
            " ╚════════════════════════════════════════════════════════════════════════════╝ ",
            " ⏸ PAUSED 00:00:00 ×1 · iPhone online · auto-fetch · 1 to send                  ",
        ])
        await inspector.press(.enter)
        #expect(inspector.state.snapshot.lesson?.stepsRun == 4)
    }

    @Test func theEndScreenSummarisesTheChecksAndRestarts() async throws {
        let inspector = try await makeLesson()
        for _ in 0..<8 { await inspector.press(.enter) }
        #expect(inspector.lines == [
            " SyncScope │ 1 iPhone (alice) │ 2 Mac (alice) │                                 ",
            "┌─ Zones seen by Mac (alice) ──────────────┐┌─ Records · Notes · ser ◆ changed ┐",
            "│zone        recs server  device  state    ││   name▲         srv  dev  title  │",
            "│private database                          ││   note-1        1    1    Grocer…│",
            "│Notes          1 #1 adjS #1 adjS in sync  ││                                  │",
            "│default        0 —       —       —        ││                                  │",
            "│shared database                           ││                                  │",
            "└─╔═ Lesson complete · A tiny lesson ════════════════════════════════════════╗─┘",
            "┌─║ 1 of 2 checks held; 1 did not:                                           ║─┐",
            "│t║ ✗ step 8 (line 17) cache: Mac's cache of Notes: count: expected 5, got 1 ║ │",
            "│0║   [note-1]                                                               ║ │",
            "│ ║                                                                          ║ │",
            "└─║ b or Enter: start again · t: jump to a step · Esc: look around · q: quit ║─┘",
            "╔═║                                                                          ║─┐",
            "║T║                                                                          ║ │",
            "║ ╚══════════════════════════════════════════════════════════════════════════╝ │",
            "║  [8] check cache (line 17): FAILED: Mac's    ║│Mac: fetch (Mac fetches the   │",
            "║  cache of Notes: count: expected 5, got 1    ║│  changes of zone Notes from  │",
            "║  [note-1]                                    ║│  no token)                   │",
            "║Lesson over: b starts again · t steps · q qui…║│E: the whole log, full width ▸│",
            "╚══════════════════════════ ↓ j: 2 more lines ═╝└──────────────────────────────┘",
            "                                                                 ? keys  q quit ",
            " ✗ Step 8: cache did not hold: Mac's cache of Notes: count: expected 5, got 1 … ",
            " ⏸ PAUSED 00:00:00 ×1 · Mac online · auto-fetch                                 ",
        ])
        await inspector.press(.enter)
        #expect(inspector.state.snapshot.lesson?.stepsRun == 0)
        #expect(!inspector.state.lessonMode.showsSummary)
        #expect(inspector.state.snapshot.lesson?.checks.isEmpty == true)
    }
}
