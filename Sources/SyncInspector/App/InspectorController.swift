import SyncCore
import SyncClient
import SyncWorlds

/// Runs the inspector: keys → ``InspectorKeys`` → effects on the world
/// (commands, server reads) whose results come back as events →
/// ``InspectorUpdate`` → a fresh snapshot → ``InspectorView`` → the terminal.
///
/// Not thread-safe: the loop, curses and the world all run on one serial
/// executor (``TerminalExecutor``); on a live world, effects are tasks on
/// that same executor, so keys are read while they wait for the server.
public final class InspectorController {
    /// The world on screen (a lesson's restart replaces it): an in-process
    /// `Simulation` (SyncSimulation) or one device on a real server (`RemoteWorld`, in SyncRemoteWorld).
    public private(set) var world: SyncWorld
    /// The lesson being played, if any.
    public let lesson: (any InspectorLesson)?
    /// Whatever must live as long as the simulation (the runner that owns its files).
    public let keepAlive: AnyObject?
    public internal(set) var state: InspectorState
    public var view: InspectorView
    public var log: InspectorLog?
    /// Real time, for pacing frames and mapping it to the world's clock
    /// (the wall clock; a `VirtualClock` in tests).
    public let realClock: any SyncClock
    /// Frames the world asks for (its clock running, the writer, pushes,
    /// fetches) come at most this often; a key is answered with a frame at
    /// once. See ``defaultFrameInterval``.
    public var frameInterval: Milliseconds = InspectorController.defaultFrameInterval
    /// 100 ms: a busy world is drawn ten times a second, as htop and k9s
    /// refresh, so watching 1,000 changes a second costs a small share of a
    /// core; the world itself moves on, and is read, once a frame.
    public static let defaultFrameInterval: Milliseconds = 100
    /// On a live world, how long the loop waits for a key before looking for
    /// pushes that arrived (it blocks in between, it does not spin).
    public var liveTick: Milliseconds = 200

    /// What the server holds, as the panes show it: the world's
    /// `SyncWorld.serverObserver` (a test puts a double in its place).
    public var observer: any ServerObserver
    /// Effects waiting to run, in order (one at a time per world).
    var lane: [InspectorEffect] = []
    /// The effect running off the key path, if any.
    var inFlight: InspectorEffect?
    /// Results of effects that ran off the key path, for the loop to apply.
    var inbox: [InspectorEffectResult] = []
    /// Where effects run off the key path (the terminal's thread); set by ``run(backend:executor:)``.
    var effectExecutor: (any TaskExecutor)?
    var effectTask: Task<Void, Never>?
    /// Whether effects run as tasks while keys are read (a live world, whose
    /// commands and reads go over the network), or are awaited where they are
    /// asked for (an in-process world: its calls never suspend, and lessons and
    /// tests stay deterministic). `nil`: decided by the world.
    public var runsEffectsConcurrently: Bool?

    /// Bumped by every sync event of a device: its cache may have changed.
    private var generations: [String: Int] = [:]
    /// Set while an action runs: something worth saying that happened meanwhile.
    var actionDepth = 0
    var notableDuringAction: InspectorMessage?
    /// Set when an error during the action was followed by an answer from the server (a retry worked).
    var recoveredDuringAction = false
    private var anchorReal: Milliseconds = 0
    private var anchorVirtual: Milliseconds = 0
    var repaintRequested = false
    /// Copies text to the terminal's clipboard (`y`): the backend's, set by ``run(backend:executor:)``.
    public var clipboard: ((String) -> Clipboard.Outcome)?
    /// What the server said at the last read, through `SyncWorld.serverObserver`
    /// (the same path for an in-process server and one over HTTP).
    private(set) var reading = ServerReading()
    /// The records pane's rows, brought up to date with the changes since it last looked.
    private var recordRows = RecordRowsModel()
    /// How many times the record rows were read from scratch (otherwise changes are applied to them).
    public var recordListBuilds: Int { recordRows.rebuilds }
    /// How many times changes were applied to the record rows.
    public var recordListUpdates: Int { recordRows.updates }

    /// - Parameter world: the world to show; a world on real time (a device on
    ///   a real server) shows "live", and the clock keys do not apply to it.
    ///   (ignored when `lesson` is given: its world is shown). The server is
    ///   read once before the initializer returns.
    public init(
        world: SyncWorld, lesson: (any InspectorLesson)? = nil, keepAlive: AnyObject? = nil, paused: Bool = false, speed: Double = 1,
        screenSize: Size = Size(width: 80, height: 24), theme: Theme = .monochrome, realClock: any SyncClock = SystemClock(),
        log: InspectorLog? = nil
    ) async {
        self.world = lesson?.world ?? world
        self.observer = (lesson?.world ?? world).serverObserver
        self.lesson = lesson
        self.keepAlive = keepAlive
        self.realClock = realClock
        self.log = log
        self.view = InspectorView(theme: theme)
        state = InspectorState(
            clock: ClockStatus(now: self.world.clock.now(), isPaused: paused, speed: max(0.01, speed)), screenSize: screenSize)
        if let lesson {
            state.message = InspectorMessage("Lesson: \(lesson.title). Enter runs the next step; p steps back, t lists the steps, b starts again.")
            lesson.onRestart = { [unowned self] world in self.switchTo(world) }
        } else if !self.world.isVirtualTime {
            state.clock.isLive = true
            state.message = InspectorMessage(
                "\(self.world.devices.map(\.name).joined(separator: ", ")) on \(self.world.serverObserver.source), live. ? shows every key.")
        } else {
            state.message = InspectorMessage(
                "alice's iPhone and Mac and bob's iPad sync through a simulated server. ? shows every key.")
        }
        logEarlierEvents()
        installObserver()
        reanchor()
        await refresh()
    }

    /// The log starts with what happened before the inspector opened (the
    /// world's first sync), so `--log` misses nothing.
    private func logEarlierEvents() {
        guard let log else { return }
        let kept = world.events
        let dropped = world.eventCount - kept.count
        if dropped > 0 { log.write("(\(Plural.count(dropped, "earlier event")) not kept)") }
        for event in kept { log.write("\(Format.clock(event.time)) \(event)") }
    }

    /// A lesson's runner watches its simulation itself and passes events on.
    private func installObserver() {
        if let lesson {
            lesson.eventObserver = { [unowned self] event in self.observe(event) }
        } else {
            world.eventObserver = { [unowned self] event in self.observe(event) }
        }
    }

    /// Shows another world (a restarted lesson): selections start over.
    private func switchTo(_ world: SyncWorld) {
        self.world = world
        observer = world.serverObserver
        generations = [:]
        reading = ServerReading()
        readFor = nil
        recordRows.invalidate()
        let keep = (state.focusedDevice, state.pane, state.recordsMode, state.screenSize, state.clock.speed, state.clock.isPaused)
        let lessonMode = state.lessonMode
        state = InspectorState(clock: ClockStatus(now: world.clock.now(), isPaused: keep.5, speed: keep.4), screenSize: keep.3)
        state.focusedDevice = keep.0
        state.pane = keep.1
        state.recordsMode = keep.2
        state.lessonMode = lessonMode
        installObserver()
        reanchor()
    }

    // MARK: Reading the simulation

    /// Reads the server (through ``observer``, in process as over HTTP), then
    /// fills the snapshot; waits for the answer (the first frame, tests, a
    /// lesson step). The live loop reads through ``InspectorEffect/readServer`` instead.
    public func refresh() async {
        await readServer()
        rebuild()
        // The rebuild may have moved the selection (the first zone appeared, a
        // token scrolled away): read what the new selection shows.
        if readFor != readTarget() {
            await readServer()
            rebuild()
        }
    }

    /// The zone and token the last read was for.
    private var readFor: ReadTarget?

    func readTarget() -> ReadTarget {
        var receipt: TokenReceipt?
        if state.pane == .tokens, let row = state.tokenTable.selection, !state.snapshot.tokens.isEmpty {
            let tokens = state.snapshot.tokens
            receipt = tokens[max(0, min(tokens.count - 1, tokens.count - 1 - row))]
        }
        return ReadTarget(zone: state.selectedZone, receipt: receipt)
    }

    /// Asks the world's ``ServerObserver`` what the focused device's zones, the
    /// selected zone's records, the selected token's rewind and the device's
    /// notifications on their way look like on the server.
    func readServer() async {
        guard let result = await performRead() else { return }
        applyRead(result)
    }

    /// The read itself (an effect): touches no state.
    func performRead() async -> InspectorEffectResult? {
        guard world.devices.indices.contains(state.focusedDevice) else { return nil }
        let device = world.devices[state.focusedDevice]
        let observer = self.observer
        let target = readTarget()
        readFor = target
        do throws(CloudError) {
            let next = try await ServerReading.read(
                observer, device: device, zone: target.zone, rewind: target.receipt, recordRows: recordRows)
            return .serverRead(device: device.name, target: target, source: observer.source, result: .success(next))
        } catch {
            return .serverRead(device: device.name, target: target, source: observer.source, result: .failure(error))
        }
    }

    /// What a read said, into the state. A read for a device that is no longer focused is dropped.
    /// - Returns: whether the read was for the focused device.
    @discardableResult
    func applyRead(_ result: InspectorEffectResult) -> Bool {
        guard case .serverRead(let name, _, let source, let outcome) = result else { return false }
        guard world.devices.indices.contains(state.focusedDevice), world.devices[state.focusedDevice].name == name else { return false }
        switch outcome {
        case .success(let next):
            reading = next
            state.serverReadSucceeded(source: source)
        case .failure(let error):
            state.serverReadFailed(source: source, reason: error.reason)
        }
        return true
    }

    /// Fills the snapshot from the simulation and brings selections in line with it.
    public func rebuild() {
        var snapshot = state.snapshot
        snapshot.devices = world.devices.map { device in
            DeviceSummary(
                name: device.name, user: device.user, deviceID: device.deviceID, isOnline: device.isOnline,
                autoFetchOnPush: device.engine.autoFetchOnPush, pendingChanges: device.pendingChangeCount,
                fetchRuns: device.engine.fetchRuns.count, lastError: device.lastError)
        }
        if !snapshot.devices.indices.contains(state.focusedDevice) { state.focusedDevice = 0 }
        snapshot.events = Array(world.recentEvents(EventLog.keptEvents))
        snapshot.eventCount = world.eventCount
        snapshot.faultRules = reading.faultRules
        snapshot.writer = world.writer.map { WriterStatus(isRunning: $0.isRunning, interval: $0.interval, actions: $0.actions) }
        state.clock.now = world.clock.now()
        snapshot.lesson = lesson.map { lesson in
            LessonStatus(
                title: lesson.title, stepsRun: lesson.stepsRun, stepCount: lesson.stepCount,
                narrative: lesson.narrative, lastStep: lesson.lastStep, nextStep: lesson.nextStepSummary,
                failure: lesson.failureMessage, outline: lesson.outline, checks: lesson.checks)
        }
        let layout = InspectorLayout(size: state.screenSize, hasLesson: snapshot.lesson != nil)

        guard world.devices.indices.contains(state.focusedDevice) else {
            state.snapshot = snapshot
            return
        }
        let device = world.devices[state.focusedDevice]

        // Zones.
        snapshot.zones = SnapshotBuilder.zones(of: device, reading: reading)
        let entries = snapshot.zones.enumerated().compactMap { index, item in item.entry.map { (index, $0) } }
        // Until the person picks a zone, the first custom zone is shown (one may appear later, in a lesson).
        let preferred = entries.first { !$0.1.zoneID.isDefaultZone && $0.1.scope != .public } ?? entries.first
        if state.selectedZone == nil || !entries.contains(where: { $0.1.key == state.selectedZone })
            || (!state.zoneChosen && preferred?.1.key != state.selectedZone) {
            state.showZone(preferred?.1.key)
        }
        if let index = entries.first(where: { $0.1.key == state.selectedZone })?.0 {
            state.zoneTable.select(index, rowCount: snapshot.zones.count, visibleRows: layout.visibleRows(of: .zones))
        }

        // Records of the selected zone: `recordRows` applies the changes since it last looked.
        if let zone = entries.first(where: { $0.1.key == state.selectedZone })?.1 {
            // `snapshot` then holds the only reference to the rows: they are updated in place, not copied.
            state.snapshot.records = RecordList()
            updateRecordRows(&snapshot.records, zone: zone, device: device, sort: state.recordSort)
            snapshot.records.key = RecordListKey(
                zone: zone.key, device: device.name, serverSequence: zone.lastSequence, serverRecordCount: zone.recordCount,
                deviceToken: zone.deviceToken, deviceGeneration: generations[device.name, default: 0])
        } else {
            snapshot.records = RecordList()
            recordRows.invalidate()
        }
        snapshot.records.apply(filter: state.filter, mode: state.recordsMode, sort: state.recordSort)
        let recordRows = snapshot.records.count
        let recordVisible = layout.visibleRows(of: .records)
        if let name = state.selectedRecordName {
            let (index, _) = snapshot.records.index(of: name)
            state.recordTable.select(min(index, max(0, recordRows - 1)), rowCount: recordRows, visibleRows: recordVisible)
        } else {
            state.recordTable.clamp(rowCount: recordRows, visibleRows: recordVisible)
        }
        state.selectedRecordName = state.recordTable.selection.flatMap { snapshot.records.row(at: $0)?.name }

        // Tokens, newest first on screen.
        let history = lesson?.tokenReceipts(for: device) ?? device.tokenHistory
        snapshot.tokens = Array(history.suffix(InspectorSnapshot.tokenLimit))
        snapshot.tokenTotal = history.count
        let tokenRows = snapshot.tokens.count
        let tokenRow = state.tokenSelection.map { snapshot.tokenTotal - 1 - $0 } ?? 0
        state.tokenTable.select(min(max(0, tokenRow), max(0, tokenRows - 1)), rowCount: tokenRows, visibleRows: layout.visibleRows(of: .tokens))
        if state.pane == .tokens, let row = state.tokenTable.selection, tokenRows > 0 {
            let receipt = snapshot.tokens[tokenRows - 1 - row]
            if let read = reading.rewind, read.receipt == receipt {
                snapshot.rewind = SnapshotBuilder.rewind(read, device: device)
            } else if snapshot.rewind?.receipt != receipt {
                // Not read yet (the selection just moved): the next read brings it.
                snapshot.rewind = Rewind(receipt: receipt, meaning: "reading the server…", changes: [], moreComing: false, error: nil)
            }
        } else if tokenRows == 0 {
            snapshot.rewind = nil
        }

        // Notifications: on their way first, then delivered, newest first.
        snapshot.notifications = SnapshotBuilder.notifications(of: device, reading: reading)
        snapshot.notificationTotal = device.notifications.count
        let notificationRows = snapshot.notifications.count
        var notificationRow = 0
        if let selected = state.notificationSelection,
           let index = snapshot.notifications.firstIndex(where: { $0.index == selected }) {
            notificationRow = index
        }
        state.notificationTable.select(notificationRow, rowCount: notificationRows, visibleRows: layout.visibleRows(of: .notifications))

        state.snapshot = snapshot
        state.needsRedraw = true
    }

    // MARK: Records pane (RecordRowsModel)

    /// The next refresh reads the records pane's rows from scratch.
    func invalidateRecordRows() {
        recordRows.invalidate()
    }

    /// The records pane's rows after a column sort changed to it (the rows are kept in that order).
    private var recordRowsSort: RecordSort = .name

    /// Brings the records pane's rows up to date with what the last
    /// ``readServer()`` answered for ``RecordRowsModel`` (the changes since it
    /// last looked) and the device's copy, in the order of `sort`.
    private func updateRecordRows(_ list: inout RecordList, zone: ZoneEntry, device: SyncDevice, sort: RecordSort) {
        if sort != recordRowsSort {
            recordRowsSort = sort
            recordRows.reorder(&list, by: RecordRowOrder(sort))
        }
        SnapshotBuilder.records(&list, of: zone, device: device, reading: reading, model: &recordRows)
        // Applied: a later rebuild before the next read must not apply them again.
        reading.records = nil
    }

    // MARK: Events

    private func observe(_ event: WorldEvent) {
        log?.write("\(Format.clock(event.time)) \(event)")
        guard let name = event.device else { return }
        if case .sync(let sync) = event.kind {
            generations[name, default: 0] += 1
            recordRows.note(sync, device: name)
            // The server answered: an error said before is stale (during an action, it is not the outcome).
            if let answer = InspectorState.serverAnswer(sync) {
                if actionDepth > 0, notableDuringAction?.kind == .error {
                    notableDuringAction = nil
                    recoveredDuringAction = true
                }
                if actionDepth == 0 { state.syncRecovered(device: name, what: answer) }
            }
        }
        if let message = Self.notable(event) {
            if actionDepth > 0 {
                if notableDuringAction?.kind != .error { notableDuringAction = message }
            } else if message.kind == .error {
                state.syncFailed(message, device: name)
            } else {
                state.message = message
                state.needsRedraw = true
            }
        }
    }

    /// Events worth a line at the bottom of the screen, whoever caused them.
    static func notable(_ event: WorldEvent) -> InspectorMessage? {
        let who = event.device.map { "\($0): " } ?? ""
        guard case .sync(let sync) = event.kind else { return nil }
        switch sync {
        case .error(let report):
            let code = report.code.map { "\($0.rawValue) (\($0.serverErrorCode)): " } ?? ""
            return InspectorMessage("\(who)\(report.operation) failed: \(code)\(report.message)", kind: .error)
        case .tokenExpired(let kind, let scope, let zoneID):
            let place = zoneID.map { "zone \($0.zoneName)" } ?? "the \(scope.rawValue) database"
            return InspectorMessage("\(who)changeTokenExpired: its \(kind) token for \(place) expired; it fetches again from no token.", kind: .warning)
        case .conflictMerged(_, let recordID, let tag, let keys):
            return InspectorMessage(
                "\(who)serverRecordChanged on \(recordID.recordName): the server had version \(tag ?? "?"); merged \(keys.sorted().joined(separator: ", ")) into it and sent again.",
                kind: .warning)
        case .zonePurged(_, let zoneID, let removed, _):
            return InspectorMessage("\(who)zone \(zoneID.zoneName) was purged (userDeletedZone): wiped \(Plural.count(removed, "record")); it will not upload \(removed == 1 ? "it" : "them") again.", kind: .warning)
        case .zoneEncryptedDataReset(_, let zoneID, let queued):
            return InspectorMessage("\(who)zone \(zoneID.zoneName) was reset (encrypted data): uploading its \(Plural.count(queued, "record")) again.", kind: .warning)
        case .zoneDeleted(_, let zoneID, let reason, let removed, _) where reason != .deletedLocally:
            return InspectorMessage("\(who)zone \(zoneID.zoneName) is gone from the server (\(reason.rawValue)): dropped \(Plural.count(removed, "record")).", kind: .warning)
        default:
            return nil
        }
    }

    // MARK: Time

    func reanchor() {
        anchorReal = realClock.now()
        anchorVirtual = world.clock.now()
    }

    /// Moves the simulation to the virtual time that corresponds to real
    /// `now` (nothing while paused). When the simulation falls far behind
    /// (a slow machine, a huge burst), it skips ahead rather than racing to catch up.
    public func catchUp(toReal now: Milliseconds) async {
        guard !state.clock.isPaused else { return }
        let target = anchorVirtual + Milliseconds((Double(now - anchorReal) * state.clock.speed).rounded(.down))
        let current = world.clock.now()
        guard target > current else { return }
        let maximum = Milliseconds(max(100, 500 * state.clock.speed))
        if target - current > maximum {
            await world.advance(by: maximum)
            reanchor()
        } else {
            await world.advance(by: target - current)
        }
    }

    /// Real milliseconds until something is due: the simulation's next event,
    /// the next change of the clock on screen (at most four a second), or a
    /// frame that was held back. `nil`: nothing, wait for a key for ever.
    public func millisecondsUntilDue(realNow now: Milliseconds, lastDraw: Milliseconds) -> Milliseconds? {
        var waits: [Milliseconds] = []
        if state.needsRedraw { waits.append(max(0, lastDraw + frameInterval - now)) }
        if let until = state.lessonMode.highlightUntil { waits.append(max(0, until - now)) }
        if !state.clock.isPaused {
            let speed = state.clock.speed
            let virtualNow = world.clock.now()
            func realWait(_ virtual: Milliseconds) -> Milliseconds {
                Milliseconds((Double(max(0, virtual)) / speed).rounded(.up))
            }
            if let next = world.nextEventTime {
                // Events are processed in batches at most once a frame.
                waits.append(max(realWait(next - virtualNow), lastDraw + frameInterval - now))
            }
            let nextSecond = (virtualNow / 1000 + 1) * 1000
            waits.append(max(realWait(nextSecond - virtualNow), lastDraw + 250 - now))
        }
        return waits.min().map { max(0, $0) }
    }

    // MARK: The loop

    /// Runs until the person quits. Draws only when something changed, at
    /// most once a frame for simulation changes; blocks in `readKey` the rest
    /// of the time (for ever while the clock is paused).
    ///
    /// - Parameter executor: the executor the loop runs on (the terminal's
    ///   thread, ``TerminalExecutor``). Given it, a live world's commands and
    ///   server reads run there as tasks while the loop goes on reading keys,
    ///   and their results come back as events; without it they are awaited
    ///   where a key asks for them.
    public func run(backend: some TerminalBackend, executor: (any TaskExecutor)? = nil) async throws(TerminalError) {
        effectExecutor = executor
        defer { effectExecutor = nil }
        let concurrent = effectsRunConcurrently
        state.screenSize = backend.size
        clipboard = { backend.copyToClipboard($0) }
        reanchor()
        if concurrent { enqueue(.readServer) } else { await refresh() }
        var drawnSize: Size?
        // Frames are paced from when their work began (the wake-up), so the
        // simulation's work for a frame overlaps the interval instead of adding to it.
        var lastDraw: Milliseconds = realClock.now() - frameInterval
        var woke = realClock.now()
        var lastAdvance = woke
        var drawNow = true
        var shownSecond = state.clock.now / 1000
        var seenEvents = world.eventCount
        while true {
            if concurrent {
                if applyFinishedEffects() { drawNow = true }
                startNextEffect()
            }
            let size = backend.size
            if size != state.screenSize {
                state.screenSize = size
                rebuild()
                drawNow = true
            }
            if repaintRequested {
                backend.invalidate()
                repaintRequested = false
                drawNow = true
            }
            if drawnSize != size || (state.needsRedraw && (drawNow || woke - lastDraw >= frameInterval)) {
                try backend.draw(view.render(state, size: size))
                drawnSize = size
                lastDraw = woke
                state.needsRedraw = false
                drawNow = false
                shownSecond = state.clock.now / 1000
            }
            var timeout = millisecondsUntilDue(realNow: realClock.now(), lastDraw: lastDraw)
            if !world.isVirtualTime {
                // (Not while an effect runs: the advance waits for it.)
                let nextAdvance = concurrent && inFlight == nil && lane.isEmpty ? max(0, lastAdvance + liveTick - realClock.now()) : liveTick
                timeout = min(timeout ?? nextAdvance, nextAdvance)
            }
            // While an effect runs, look for its result often (its work runs on this thread between keys).
            if inFlight != nil { timeout = min(timeout ?? Self.effectPoll, Self.effectPoll) }
            let key = try backend.readKey(timeoutMs: timeout.map { Int(clamping: $0) } ?? -1)
            if inFlight != nil { await Task.yield() }
            woke = realClock.now()
            if state.lessonMode.expireHighlight(now: woke) { state.needsRedraw = true }
            if let key {
                if key == .resize {
                    state.screenSize = backend.size
                    rebuild()
                }
                // Off the key path, a key only queues what needs the world; otherwise it waits for it.
                let goOn = concurrent ? await receive(key) : await handle(key)
                guard goOn else {
                    await stopEffects()
                    return
                }
                drawNow = true
            }
            if concurrent {
                if inFlight == nil && lane.isEmpty {
                    if world.isVirtualTime {
                        await catchUp(toReal: realClock.now())
                    } else if woke - lastAdvance >= liveTick {
                        // Real time: process whatever pushes and scheduled fetches are due.
                        lastAdvance = woke
                        enqueue(.advanceLive)
                    }
                }
            } else if world.isVirtualTime {
                await catchUp(toReal: realClock.now())
            } else {
                await world.advance(by: 0)
            }
            // (A key that changed something already read the server in ``handle(_:)``.)
            if world.eventCount != seenEvents {
                seenEvents = world.eventCount
                if concurrent {
                    // The device's own side shows now; the server's comes with the read.
                    rebuild()
                    enqueue(.readServer)
                } else {
                    await refresh()
                }
            } else {
                state.clock.now = world.clock.now()
                if state.clock.now / 1000 != shownSecond { state.needsRedraw = true }
            }
        }
    }

    /// The frame for the current state (for tests and the benchmark).
    public func frame(size: Size? = nil) -> CellBuffer {
        view.render(state, size: size ?? state.screenSize)
    }

    /// Lays the state out for another terminal size.
    public func resize(to size: Size) {
        state.screenSize = size
        rebuild()
    }
}
