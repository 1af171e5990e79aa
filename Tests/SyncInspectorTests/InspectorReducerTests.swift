import SyncCore
import SyncClient
@testable import SyncWorlds
import Testing
@testable import SyncInspector

/// The update step alone (``TestStore``): each test sends messages to a
/// hand-built state and asserts the whole new state and the effects asked
/// for. No simulation, no server, no terminal.
@Suite("Inspector update step")
struct InspectorReducerTests {
    typealias W = HandBuiltWorld
    static let size = Size(width: 80, height: 24)

    static func readRequest(_ index: Int = 0, _ device: String? = "iPhone", zone: ZoneKey? = W.notesKey) -> ServerReadRequest {
        ServerReadRequest(deviceIndex: index, device: device, target: ReadTarget(zone: zone, receipt: nil))
    }

    static func virtual(real: Milliseconds, world: Milliseconds, next: Milliseconds? = nil) -> InspectorTimeline {
        var time = InspectorTimeline.VirtualTime()
        time.anchorReal = real
        time.anchorVirtual = world
        time.nextEvent = next
        return .virtual(time)
    }

    /// The state after the first reads: iPhone focused, Notes shown with its two records.
    static func loaded(paused: Bool = true, live: Bool = false) -> TestStore {
        var store = TestStore(W.state(paused: paused, live: live))
        store.prepare(.started(size: size, now: 0))
        store.prepare(.serverRead(ServerReadResult(
            request: readRequest(zone: nil), source: "the in-process server", reading: .success(ServerReading()), world: W.snapshot())))
        store.prepare(.serverRead(ServerReadResult(
            request: readRequest(), source: "the in-process server", reading: .success(W.reading()), world: W.snapshot())))
        return store
    }

    /// What a first snapshot of `world` makes of a fresh state: the panes
    /// filled, Notes followed (the first custom zone), its rows waiting for
    /// the read of Notes (the model knows its zone now, and reads it whole).
    static func showNotesWaitingForItsRows(_ state: inout InspectorState, world: WorldSnapshot) {
        state.snapshot.devices = world.devices
        state.snapshot.eventCount = world.eventCount
        state.snapshot.zones = W.zones()
        state.selectedZone = W.notesKey
        let layout = InspectorLayout(size: size, hasLesson: false)
        state.zoneTable.select(1, rowCount: 6, visibleRows: layout.visibleRows(of: .zones))
        var list = RecordList()
        state.world.recordRows.update(
            &list, of: RecordRowsModel.Source(zone: W.notesKey, device: "iPhone"),
            mark: RecordRowsModel.ServerMark(token: nil, lastSequence: 4, recordCount: 2), deviceToken: nil,
            device: RecordRowsDeviceCopy(zone: W.notesKey, all: [])) { _ in nil }
        list.key = RecordListKey(
            zone: W.notesKey, device: "iPhone", serverSequence: 4, serverRecordCount: 2, deviceToken: nil, deviceGeneration: 0)
        list.apply(filter: "", mode: .both, sort: .name)
        state.snapshot.records = list
        state.recordTable.clamp(rowCount: 0, visibleRows: layout.visibleRows(of: .records))
        state.tokenTable.select(0, rowCount: 0, visibleRows: layout.visibleRows(of: .tokens))
        state.notificationTable.select(0, rowCount: 0, visibleRows: layout.visibleRows(of: .notifications))
        state.needsRedraw = true
    }

    /// The iPhone's device action `command` answers `success`; what the
    /// action heard meanwhile goes to the line (`line`), and a read follows.
    static func finish(
        _ command: InspectorCommand, success: String, in store: inout TestStore, sourceLocation: SourceLocation = #_sourceLocation,
        _ line: (inout InspectorState) -> Void
    ) {
        let done = CommandOutcome(
            device: "iPhone", action: InspectorReducer.describe(command), result: .done(success: success, notable: nil, recovered: false))
        let read = InspectorEffect.readServer(readRequest())
        store.send(.commandFinished(command, .device(done), at: WorldTime(now: 5_000, real: 0)), effects: [read], sourceLocation: sourceLocation) {
            $0.effects.action = nil
            $0.effects.running = read
            $0.world.eventsSinceRead = false
            $0.needsRedraw = true
            line(&$0)
        }
    }

    // MARK: Starting and reading

    @Test func theLoopsStartAsksForTheFirstReadAndAnchorsTheClock() {
        var store = TestStore(W.state())
        let read = InspectorEffect.readServer(Self.readRequest(0, nil, zone: nil))
        store.send(.started(size: Size(width: 100, height: 30), now: 1_000), effects: [read]) {
            $0.screenSize = Size(width: 100, height: 30)
            $0.realNow = 1_000
            $0.timeline = Self.virtual(real: 1_000, world: 5_000)
            $0.effects.running = read
        }
    }

    @Test func aReadFillsThePanesFollowsTheFirstCustomZoneAndReadsAgainForIt() {
        var store = TestStore(W.state())
        store.prepare(.started(size: Self.size, now: 0))
        let world = W.snapshot()
        let again = InspectorEffect.readServer(Self.readRequest())
        store.send(
            .serverRead(ServerReadResult(
                request: Self.readRequest(zone: nil), source: "the in-process server", reading: .success(ServerReading()), world: world)),
            effects: [again]
        ) {
            Self.showNotesWaitingForItsRows(&$0, world: world)
            // The selection moved to Notes: the next read is for it.
            $0.effects.running = again
        }
    }

    @Test func theReadOfTheShownZoneBringsItsRowsAndNothingMore() {
        let store = Self.loaded()
        #expect(store.state.snapshot.records.rows.map(\.name) == ["note-1", "note-2"])
        #expect(store.state.snapshot.records.rows.allSatisfy { $0.marker == .new }, "on the server, not on the iPhone yet")
        #expect(store.state.effects.isIdle, "the read was for what the selection shows: no other read follows")
        #expect(store.state.world.reading.records == nil, "the rows took the reading's records: a later rebuild does not apply them again")
        #expect(store.state.world.recordRows.rebuilds == 1)
    }

    @Test func aReadForADeviceNoLongerFocusedIsDroppedAndTheFocusedOneIsRead() {
        var store = Self.loaded()
        store.prepare(.key(.character("2")))
        let before = store.state
        let forMac = InspectorEffect.readServer(Self.readRequest(1, "Mac"))
        #expect(before.effects.running == forMac, "focusing the Mac read for it")
        // A read for the iPhone, still on its way when the Mac was focused, answers now: it is not shown.
        store.send(
            .serverRead(ServerReadResult(
                request: Self.readRequest(), source: "the in-process server", reading: .success(W.reading()), world: W.snapshot())),
            effects: [forMac]
        ) {
            $0.effects.running = forMac
        }
    }

    @Test func aFailedReadSaysWhyAndTheNextOneThatWorksSaysTheServerAnswersAgain() {
        var store = Self.loaded()
        store.prepare(.refresh)
        let request = Self.readRequest()
        let problem = "Cannot read the server (http://127.0.0.1:1): the server does not answer."
        store.send(
            .serverRead(ServerReadResult(
                request: request, source: "http://127.0.0.1:1", reading: .failure(CloudError(.networkFailure, "the server does not answer.")),
                world: W.snapshot()))
        ) {
            $0.effects.running = nil
            $0.serverReadProblem = problem
            $0.message = InspectorMessage(problem, kind: .error)
            $0.needsRedraw = true
        }
        store.prepare(.refresh)
        store.send(
            .serverRead(ServerReadResult(
                request: request, source: "http://127.0.0.1:1", reading: .success(ServerReading()), world: W.snapshot()))
        ) {
            $0.effects.running = nil
            $0.serverReadProblem = nil
            $0.message = InspectorMessage(
                "The server answers again (http://127.0.0.1:1): the panes show what it holds now.", kind: .success)
            $0.needsRedraw = true
        }
    }

    // MARK: Keys

    @Test func anUnboundKeyChangesNothingAndAsksForNothing() {
        var store = Self.loaded()
        store.send(.key(.character("§"))) { _ in }
    }

    @Test func aKeyThatChangesTheScreenReadsWhatItShows() {
        var store = Self.loaded()
        let read = InspectorEffect.readServer(Self.readRequest())
        store.send(.key(.character("?")), effects: [read]) {
            $0.overlay = .help
            $0.effects.running = read
        }
    }

    @Test func aDeviceActionRunsOnTheWorldAndAReadWaitsBehindIt() {
        var store = Self.loaded()
        let fetch = InspectorEffect.command(.fetch(device: "iPhone"))
        store.send(.key(.character("f")), effects: [fetch]) {
            $0.effects.running = fetch
            $0.effects.waiting = [.readServer]
            $0.effects.action = EffectQueue.ActionWatch()
        }
        // A second action while the first runs waits behind it, and the line says so.
        store.send(.key(.character("s"))) {
            $0.effects.waiting = [.readServer, .command(.sync(device: "iPhone"))]
            $0.message = InspectorMessage("Busy with fetch: sync runs after it (keys still work; q quits).", kind: .info)
        }
        // The runner of a live world says when the effect started.
        store.send(.effectStarted(fetch)) {
            $0.message = InspectorMessage("iPhone: fetch… working (the other keys still work). 1 more waiting.", kind: .info)
        }
    }

    @Test func qQuitsAndCtrlLRepaints() {
        var store = Self.loaded()
        store.send(.key(.character("q")), effects: [.quit]) {
            // Nothing waits to be drawn: the loop ends.
            $0.needsRedraw = false
        }
        store = Self.loaded()
        let read = InspectorEffect.readServer(Self.readRequest())
        store.send(.key(.control("l")), effects: [.repaint, read]) {
            $0.effects.running = read
        }
    }

    @Test func spacePausesAndRunsTheClockMeasuredFromNow() {
        var store = Self.loaded(paused: false)
        store.prepare(.tick(now: 0))
        store.prepare(.advanced(WorldTime(now: 5_000, nextEvent: nil, real: 0)))
        let read = InspectorEffect.readServer(Self.readRequest())
        store.prepare(.tick(now: 0))
        // Real time is 700 ms later when Space is pressed (the world's clock moved with it).
        store.prepare(.tick(now: 700))
        store.prepare(.advanced(WorldTime(now: 5_700, nextEvent: nil, real: 700)))
        store.send(.key(.character(" ")), effects: [read]) {
            $0.clock.isPaused = true
            $0.timeline = Self.virtual(real: 700, world: 5_700)
            $0.message = InspectorMessage("Clock paused: nothing happens until you press Space (or . to step).", kind: .info)
            $0.effects.running = read
        }
    }

    @Test func theClockKeysDoNotApplyToALiveWorld() {
        var store = Self.loaded(live: true)
        let read = InspectorEffect.readServer(Self.readRequest())
        store.send(.key(.character(" ")), effects: [read]) {
            $0.message = InspectorMessage("The clock is live (a device on a real server): pause, speed and step do not apply.", kind: .info)
            $0.effects.running = read
        }
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(), source: "the in-process server", reading: .success(ServerReading()), world: W.snapshot())))
        store.send(.key(.character(".")), effects: [read]) {
            $0.effects.running = read
        }
    }

    // MARK: Focus

    @Test func focusingAnotherDeviceKeepsTheSelectedRecordAndReadsForIt() {
        var store = Self.loaded()
        store.prepare(.key(.tab))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(), source: "the in-process server", reading: .success(ServerReading()), world: W.snapshot())))
        store.prepare(.key(.character("j")))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(), source: "the in-process server", reading: .success(ServerReading()), world: W.snapshot())))
        #expect(store.state.selectedRecordName == "note-2")
        let forMac = InspectorEffect.readServer(Self.readRequest(1, "Mac"))
        store.send(.key(.character("2")), effects: [forMac]) {
            $0.focusedDevice = 1
            // The Mac's rows come with its read: none meanwhile, the record stays selected by name.
            $0.snapshot.records = RecordList()
            $0.snapshot.records.key = RecordListKey(
                zone: W.notesKey, device: "Mac", serverSequence: 4, serverRecordCount: 2, deviceToken: nil, deviceGeneration: 0)
            $0.snapshot.records.apply(filter: "", mode: .both, sort: .name)
            $0.world.recordRows.invalidate()
            $0.effects.running = forMac
        }
        #expect(store.state.selectedRecordName == "note-2")
    }

    // MARK: Lesson steps

    @Test func aLessonStepSaysWhatItDidFollowsItsDeviceAndReadsTheRowsAgain() {
        var store = Self.loaded()
        store.prepare(.command(.lessonNext))
        let step = InspectorEffect.command(.lessonNext)
        #expect(store.state.effects.running == step)
        let outcome = LessonOutcome(
            .ranStep(step: 0, summary: "Mac fetches", result: LessonStepResult()), stepCount: 3, stepDevice: "Mac", touched: [.records],
            now: 2_000)
        let forMac = InspectorEffect.readServer(Self.readRequest(1, "Mac"))
        store.send(.commandFinished(.lessonNext, .lesson(outcome), at: WorldTime(now: 9_000, nextEvent: 12_000, real: 2_000)), effects: [forMac]) {
            $0.clock.now = 9_000
            $0.timeline = Self.virtual(real: 2_000, world: 9_000, next: 12_000)
            $0.world.recordRows.invalidate()
            // The screen follows the step's device (its tokens and pushes from the newest), and highlights what it changed.
            $0.focusedDevice = 1
            $0.tokenSelection = nil
            $0.tokenTable = TableState()
            $0.notificationSelection = nil
            $0.notificationTable = TableState()
            $0.lessonMode.highlighted = [.records]
            $0.lessonMode.highlightUntil = 2_000 + LessonModeState.highlightDuration
            // The presenter layout keeps the panes it touched enlarged until the next step.
            $0.lessonMode.touched = [.records]
            $0.message = InspectorMessage("Step 1 of 3 done: Mac fetches", kind: .success)
            $0.needsRedraw = true
            $0.effects.running = forMac
        }
        // The highlight goes when its time is up.
        store.send(.tick(now: 2_000 + LessonModeState.highlightDuration)) {
            $0.realNow = 2_000 + LessonModeState.highlightDuration
            $0.lessonMode.highlighted = []
            $0.lessonMode.highlightUntil = nil
        }
    }

    @Test func aLessonsNewWorldStartsTheSelectionsOverAndKeepsTheQueue() {
        var store = Self.loaded()
        store.prepare(.command(.lessonRestart))
        let world = W.snapshot(now: 0, real: 3_000)
        store.send(.worldReplaced(world)) {
            var fresh = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1), screenSize: Self.size)
            fresh.effects = $0.effects
            fresh.world.recordRows = $0.world.recordRows
            fresh.world.recordRows.invalidate()
            fresh.timeline = Self.virtual(real: 3_000, world: 0)
            Self.showNotesWaitingForItsRows(&fresh, world: world)
            $0 = fresh
        }
        #expect(store.state.effects.running == .command(.lessonRestart), "the restart still runs: its outcome comes next")
    }

    // MARK: The world's events and effects' results

    static func event(_ number: Int, _ device: String, _ sync: SyncEvent) -> WorldEvent {
        WorldEvent(number: number, time: 5_000, device: device, kind: .sync(sync))
    }

    @Test func whatTheWorldSaysDuringAnActionBecomesItsOutcome() {
        var store = Self.loaded()
        let fetch = InspectorCommand.fetch(device: "iPhone")
        store.prepare(.command(fetch))
        let code = CloudError.Code.serviceUnavailable
        let error = SyncErrorReport(operation: "changes/zone", scope: .private, zoneID: W.notes, error: CloudError(code, "try again later"))
        let said = InspectorMessage("iPhone: changes/zone failed: \(code.rawValue) (\(code.serverErrorCode)): try again later", kind: .error)
        store.send(.worldEvent(Self.event(4, "iPhone", .error(error)))) {
            $0.world.eventsSinceRead = true
            $0.world.generations["iPhone"] = 1
            // The rows take note (a zone without change tokens: any event of the device may have touched it).
            $0.world.recordRows.note(.error(error), device: "iPhone")
            // During the action it is not on the line yet: it is the action's to say.
            $0.effects.action = EffectQueue.ActionWatch(notable: said, recovered: false)
        }
        Self.finish(fetch, success: "iPhone fetched.", in: &store) {
            // An error the server did not answer since: it stays as the device's sync problem.
            $0.syncProblem = SyncProblem(device: "iPhone", text: said.text)
            $0.message = said
        }
    }

    @Test func anErrorFollowedByAnAnswerDuringTheActionSaysARetryWorked() {
        var store = Self.loaded()
        let sync = InspectorCommand.sync(device: "iPhone")
        store.prepare(.command(sync))
        let error = SyncErrorReport(operation: "zones/modify", scope: .private, error: CloudError(.serviceUnavailable, "try again later"))
        store.prepare(.worldEvent(Self.event(4, "iPhone", .error(error))))
        store.send(.worldEvent(Self.event(5, "iPhone", .zonesSent(scope: .private, saved: [W.notes], deleted: [])))) {
            $0.world.generations["iPhone"] = 2
            $0.effects.action = EffectQueue.ActionWatch(notable: nil, recovered: true)
        }
        Self.finish(sync, success: "iPhone sent its changes and fetched.", in: &store) {
            $0.message = InspectorMessage("iPhone sent its changes and fetched. (A first attempt failed; a retry worked.)", kind: .success)
        }
    }

    @Test func outsideAnActionAWarningGoesStraightToTheLine() {
        var store = Self.loaded()
        let zone = W.notes
        store.send(.worldEvent(Self.event(4, "Mac", .zonePurged(scope: .private, zoneID: zone, recordsRemoved: 2, pendingChangesDropped: 0)))) {
            $0.world.eventsSinceRead = true
            $0.world.generations["Mac"] = 1
            $0.message = InspectorMessage(
                "Mac: zone Notes was purged (userDeletedZone): wiped 2 records; it will not upload them again.", kind: .warning)
            $0.needsRedraw = true
        }
    }

    @Test func theClipboardsAnswerIsSaidWithoutTouchingTheQueue() {
        var store = Self.loaded()
        store.send(.commandFinished(.copy("note-1", what: "the record name note-1"), .copied(what: "the record name note-1", .sent(viaTmux: false)), at: WorldTime())) {
            let message = Clipboard.message(copied: "the record name note-1", outcome: .sent(viaTmux: false))
            $0.message = InspectorMessage(message.text, kind: message.kind)
            $0.needsRedraw = true
        }
    }

    @Test func offTheKeyPathTheDevicesOwnSideIsReadAtOnceBesideTheServer() {
        var store = TestStore(W.state())
        store.prepare(.started(size: Self.size, now: 0, offKeyPath: true))
        #expect(store.state.effects.offKeyPath)
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(zone: nil), source: "http://127.0.0.1:1", reading: .success(ServerReading()), world: W.snapshot())))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(), source: "http://127.0.0.1:1", reading: .success(W.reading()), world: W.snapshot())))
        let fetch = InspectorCommand.fetch(device: "iPhone")
        store.prepare(.command(fetch))
        let done = CommandOutcome(device: "iPhone", action: "fetch", result: .done(success: "iPhone fetched.", notable: nil, recovered: false))
        let read = InspectorEffect.readServer(Self.readRequest())
        store.send(.commandFinished(fetch, .device(done), at: WorldTime(now: 5_000, real: 0)), effects: [.readWorld, read]) {
            $0.effects.action = nil
            $0.effects.running = read
            $0.message = InspectorMessage("iPhone fetched.", kind: .success)
            $0.needsRedraw = true
        }
        // The device's side comes first; the server read is still under way.
        var world = W.snapshot()
        world.devices[0].pendingChanges = 1
        store.send(.worldRead(world)) {
            $0.snapshot.devices = world.devices
        }
        // A snapshot of another device than the focused one is not shown.
        store.send(.worldRead(W.snapshot(focused: "Mac"))) { _ in }
    }

    /// 120×40 → 80×24 with the event log focused: the log is no longer
    /// drawn, so the focus moves to a pane on screen.
    @Test func shrinkingTheScreenTakesTheFocusOffAHiddenPane() {
        var store = Self.loaded()
        store.prepare(.resized(Size(width: 120, height: 40)))
        store.prepare(.key(.character("E")))
        #expect(store.state.pane == .events)
        #expect(store.state.layout.events != nil)
        store.prepare(.resized(Size(width: 80, height: 24)))
        #expect(store.state.layout.events == nil)
        #expect(store.state.pane == .zones)
        #expect(store.state.isFocused(.zones))
    }

    // MARK: Time

    @Test func aRunningClockMovesTheWorldToRealTimeTimesTheSpeed() {
        var store = TestStore(W.state(paused: false))
        store.prepare(.started(size: Self.size, now: 0))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(0, nil, zone: nil), source: "the in-process server", reading: .success(ServerReading()),
            world: WorldSnapshot(time: WorldTime(now: 5_000)))))
        #expect(store.state.effects.isIdle)
        store.prepare(.key(.character("+")))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(0, nil, zone: nil), source: "the in-process server", reading: .success(ServerReading()),
            world: WorldSnapshot(time: WorldTime(now: 5_000)))))
        #expect(store.state.clock.speed == 2)
        store.send(.tick(now: 300), effects: [.advance(by: 600)]) {
            $0.realNow = 300
            $0.effects.running = .advance(by: 600)
        }
        // While the world is busy, time waits for it.
        store.send(.tick(now: 400)) {
            $0.realNow = 400
        }
        // It moved on; nothing happened on the way, so nothing is read.
        store.send(.advanced(WorldTime(now: 5_600, nextEvent: 7_000, real: 400))) {
            $0.effects.running = nil
            $0.clock.now = 5_600
            $0.timeline = Self.virtual(real: 0, world: 5_000, next: 7_000)
        }
    }

    /// At ×1 the loop sleeps up to a second (until the clock on screen
    /// shows the next one): twenty seconds of real time, ticked that way on
    /// an injected clock, must be twenty seconds of the world's time.
    @Test func atTimesOneTheClockKeepsRealTime() {
        var store = TestStore(W.state(paused: false))
        store.prepare(.started(size: Self.size, now: 0))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(0, nil, zone: nil), source: "the in-process server", reading: .success(ServerReading()),
            world: WorldSnapshot(time: WorldTime(now: 5_000)))))
        #expect(store.state.clock.speed == 1)
        var real: Milliseconds = 0
        // Ticks as the loop wakes: after a second, after 750 ms, after a frame.
        let waits: [Milliseconds] = [1_000, 750, 100, 1_000, 980, 1_000, 170]
        var index = 0
        while real < 20_000 {
            real = min(20_000, real + waits[index % waits.count])
            index += 1
            let effects = store.prepare(.tick(now: real))
            guard case .advance(let by)? = effects.first else {
                Issue.record("tick at \(real) asked \(effects)")
                return
            }
            store.prepare(.advanced(WorldTime(now: store.state.clock.now + by, real: real)))
        }
        #expect(store.state.clock.now == 25_000, "20 s of real time moved the world \(store.state.clock.now - 5_000) ms")
    }

    @Test func farBehindTheClockSkipsAheadInsteadOfRacing() {
        var store = TestStore(W.state(paused: false))
        store.prepare(.started(size: Self.size, now: 0))
        store.prepare(.serverRead(ServerReadResult(
            request: Self.readRequest(0, nil, zone: nil), source: "the in-process server", reading: .success(ServerReading()),
            world: WorldSnapshot(time: WorldTime(now: 5_000)))))
        store.send(.tick(now: 10_000), effects: [.advance(by: 500)]) {
            $0.realNow = 10_000
            $0.effects.running = .advance(by: 500)
            $0.timeline = Self.virtual(real: 10_000, world: 5_500)
        }
    }

    @Test func aPausedClockAsksNothingOfTime() {
        var store = Self.loaded()
        store.send(.tick(now: 60_000)) {
            $0.realNow = 60_000
        }
    }

    @Test func aLiveWorldIsLookedAtEveryTick() {
        var store = Self.loaded(live: true)
        store.send(.tick(now: 150)) {
            $0.realNow = 150
        }
        store.send(.tick(now: 200), effects: [.advanceLive]) {
            $0.realNow = 200
            $0.timeline = .live(InspectorTimeline.LiveTime())
            if case .live(var time) = $0.timeline {
                time.lastAdvance = 200
                $0.timeline = .live(time)
            }
            $0.effects.running = .advanceLive
        }
        // Pushes arrived meanwhile: the server is read after the look.
        store.prepare(.worldEvent(Self.event(4, "iPhone", .zonesSent(scope: .private, saved: [], deleted: []))))
        let read = InspectorEffect.readServer(Self.readRequest())
        store.send(.advanced(WorldTime(now: 5_000, real: 200)), effects: [read]) {
            $0.effects.running = read
            $0.world.eventsSinceRead = false
        }
    }
}
