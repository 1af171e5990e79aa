import SyncCore
import SyncClient
import SyncWorlds

/// The inspector's update step, one pure function (Elm's update, Bubble
/// Tea's Update, TCA's reducer): ``reduce(_:_:)`` takes the state and a
/// message (a key, time passing, an event of the world, an effect's result)
/// and returns the effects to start. It reads no world, no terminal and no
/// clock: what it knows of them arrives in messages.
///
/// Keys go through ``InspectorKeys``, an outcome's message line through
/// ``InspectorUpdate``; the rest is here: the queue of effects on the world,
/// the snapshot read of the world into the panes, the selections kept in line
/// with it, the clock.
public enum InspectorReducer {
    /// Changes `state` for `message` and returns the effects to start, in order.
    public static func reduce(_ state: inout InspectorState, _ message: InspectorMsg) -> [InspectorEffect] {
        // A watched server has no devices of the inspector's own: its panes are the watch's.
        if state.watch.isOn { return ServerWatchReducer.reduce(&state, message) }
        var effects: [InspectorEffect] = []
        switch message {
        case .started(let size, let now, let offKeyPath):
            state.effects.offKeyPath = offKeyPath
            state.screenSize = size
            state.realNow = now
            state.timeline.anchor(real: now, world: state.clock.now)
            if case .live(var time) = state.timeline {
                time.lastAdvance = now
                state.timeline = .live(time)
            }
            state.effects.enqueue(.readServer)
        case .tick(let now):
            state.realNow = now
            if state.lessonMode.expireHighlight(now: now) { state.needsRedraw = true }
            if let effect = state.timeline.tick(now: now, clock: state.clock, worldBusy: !state.effects.isIdle) {
                state.effects.running = effect
                effects.append(effect)
            }
        case .key(let key):
            effects += receive(key, state: &state)
            if effects.contains(.quit) { return effects }
        case .command(let command):
            effects += run([command], state: &state)
            if effects.contains(.quit) { return effects }
        case .refresh:
            state.effects.enqueue(.readServer)
        case .resized(let size):
            state.screenSize = size
            // A pane the new size does not draw (the event log below 34 rows)
            // gives the focus back to the first pane: keys never act on a hidden pane.
            if !state.tabOrder.contains(state.pane) {
                state.pane = state.tabOrder.first ?? .zones
                state.needsRedraw = true
            }
            rebuild(&state, with: nil)
        case .frameDrawn:
            state.needsRedraw = false
        case .worldEvent(let event):
            observe(event, state: &state)
        case .effectStarted(let effect):
            if case .command(let command) = effect, let device = device(of: command) {
                InspectorUpdate.started(describe(command), device: device, queued: state.effects.waitingCommands, state: &state)
            }
        case .commandFinished(let command, let outcome, let time):
            effects += finished(command, outcome, at: time, state: &state)
        case .serverRead(let result):
            read(result, state: &state)
        case .worldRead(let world):
            if world.focused?.device == state.device?.name { rebuild(&state, with: world) }
        case .advanced(let time):
            switch state.effects.running {
            case .advance?, .advanceLive?: state.effects.running = nil
            default: break
            }
            note(time, state: &state)
            if state.world.eventsSinceRead { effects += worldChanged(&state) }
        case .worldReplaced(let world):
            replaceWorld(with: world, state: &state)
        case .feedRead, .watchRead, .clientRenamed:
            // A watched server's (``ServerWatchReducer``).
            break
        }
        effects += startNext(&state)
        return effects
    }

    // MARK: Keys and commands

    /// A key: the state changes at once (``InspectorKeys``); commands on
    /// the inspector alone are answered here, those on the world are queued,
    /// followed by a read of the server.
    static func receive(_ key: KeyEvent, state: inout InspectorState) -> [InspectorEffect] {
        let wasWaitingToDraw = state.needsRedraw
        state.needsRedraw = false
        let commands = InspectorKeys.handle(key, state: &state)
        let effects = run(commands, state: &state)
        if effects.contains(.quit) { return effects }
        // A key that changed nothing (an unbound key) draws nothing.
        if state.needsRedraw || !commands.isEmpty {
            // The selection may have moved: show it now, and read what it shows.
            rebuild(&state, with: nil)
            state.effects.enqueue(.readServer)
        }
        state.needsRedraw = state.needsRedraw || wasWaitingToDraw
        return effects
    }

    /// Commands a key asked for: the inspector's own run at once (as effects
    /// on the terminal, or on the state); the world's wait in the queue.
    static func run(_ commands: [InspectorCommand], state: inout InspectorState) -> [InspectorEffect] {
        var effects: [InspectorEffect] = []
        for command in commands {
            switch command {
            case .quit:
                return effects + [.quit]
            case .redraw:
                effects.append(.repaint)
            case .copy(let text, let what):
                effects.append(.copy(text, what: what))
            case .setPaused(let paused):
                clock(state.timeline.isLive ? .live : .paused(paused), state: &state)
            case .setSpeed(let speed):
                clock(state.timeline.isLive ? .live : .speed(speed), state: &state)
            case .step where state.timeline.isLive:
                clock(.live, state: &state)
            default:
                if let running = state.effects.busyWith {
                    InspectorUpdate.queued(describe(command), behind: running, state: &state)
                }
                state.effects.enqueue(.command(command))
            }
        }
        return effects
    }

    /// Pause or speed: measured from now on.
    private static func clock(_ outcome: ClockOutcome, state: inout InspectorState) {
        if outcome != .live { state.timeline.anchor(real: state.realNow, world: state.clock.now) }
        InspectorUpdate.apply(.clock(outcome), to: &state)
    }

    /// A command's result: its outcome on the message line, then a read of
    /// what it changed on the server.
    static func finished(
        _ command: InspectorCommand, _ outcome: InspectorOutcome, at time: WorldTime, state: inout InspectorState
    ) -> [InspectorEffect] {
        var outcome = outcome
        guard state.effects.running == .command(command) else {
            // The inspector's own (the clipboard): nothing ran on the world.
            InspectorUpdate.apply(outcome, to: &state)
            return []
        }
        state.effects.running = nil
        // What the world said during a device action.
        if let watch = state.effects.action, case .device(var device) = outcome, case .done(let success, _, _) = device.result {
            device.result = .done(success: success, notable: watch.notable, recovered: watch.recovered)
            outcome = .device(device)
        }
        state.effects.action = nil
        note(time, state: &state)
        switch command {
        case .step, .lessonNext, .lessonGoTo:
            // The world's clock jumped: real time maps to it from here.
            state.timeline.anchor(real: time.real, world: time.now)
        default:
            break
        }
        if case .lesson = outcome {
            // A step may write a device's store directly (a scenario's client mistakes): read the rows from scratch.
            state.world.recordRows.invalidate()
        }
        InspectorUpdate.apply(outcome, to: &state)
        return worldChanged(&state)
    }

    /// The world changed: read the server; off the key path, read the
    /// devices' own side at once too (the server's answer may take a while).
    static func worldChanged(_ state: inout InspectorState) -> [InspectorEffect] {
        state.effects.enqueue(.readServer)
        return state.effects.offKeyPath ? [.readWorld] : []
    }

    /// Starts the next effect on the world when none is under way.
    static func startNext(_ state: inout InspectorState) -> [InspectorEffect] {
        // Asked after every message: the common answer (nothing waits) first, and no copy of the running effect.
        guard !state.effects.waiting.isEmpty, case .none = state.effects.running else { return [] }
        let effect: InspectorEffect
        switch state.effects.waiting.removeFirst() {
        case .command(let command):
            effect = .command(command)
            if device(of: command) != nil { state.effects.action = EffectQueue.ActionWatch() }
        case .readServer:
            effect = .readServer(ServerReadRequest(
                deviceIndex: state.focusedDevice, device: state.device?.name, target: readTarget(state)))
            state.world.eventsSinceRead = false
        }
        state.effects.running = effect
        return [effect]
    }

    // MARK: The world's events

    /// An event of the world: the record rows it touched, a sync error or
    /// the server answering again, something worth a line.
    static func observe(_ event: WorldEvent, state: inout InspectorState) {
        state.world.eventsSinceRead = true
        guard let name = event.device else { return }
        if case .sync(let sync) = event.kind {
            state.world.generations[name, default: 0] += 1
            state.world.recordRows.note(sync, device: name)
            // The server answered: an error said before is stale (during an action, it is not the outcome).
            if let answer = InspectorState.serverAnswer(sync) {
                if var watch = state.effects.action {
                    if watch.notable?.kind == .error {
                        watch.notable = nil
                        watch.recovered = true
                        state.effects.action = watch
                    }
                } else {
                    state.syncRecovered(device: name, what: answer)
                }
            }
        }
        if let message = notable(event) {
            if var watch = state.effects.action {
                if watch.notable?.kind != .error {
                    watch.notable = message
                    state.effects.action = watch
                }
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

    // MARK: Reading the world

    /// The zone and token the selection shows (what a server read is for).
    static func readTarget(_ state: InspectorState) -> ReadTarget {
        var receipt: TokenReceipt?
        if state.pane == .tokens, let row = state.tokenTable.selection, !state.snapshot.tokens.isEmpty {
            let tokens = state.snapshot.tokens
            receipt = tokens[max(0, min(tokens.count - 1, tokens.count - 1 - row))]
        }
        return ReadTarget(zone: state.selectedZone, receipt: receipt)
    }

    /// What a server read said, into the state. A read for a device that is
    /// no longer focused is dropped, and the focused one is read.
    static func read(_ result: ServerReadResult, state: inout InspectorState) {
        if case .readServer = state.effects.running { state.effects.running = nil }
        guard let name = result.request.device else {
            // No device to read for: the world alone.
            rebuild(&state, with: result.world)
            return
        }
        let devices = result.world.devices
        guard devices.indices.contains(state.focusedDevice), devices[state.focusedDevice].name == name else {
            state.effects.enqueue(.readServer)
            return
        }
        switch result.reading {
        case .success(let next):
            state.world.reading = next
            state.serverReadSucceeded(source: result.source)
        case .failure(let error):
            state.serverReadFailed(source: result.source, reason: error.reason)
        }
        rebuild(&state, with: result.world)
        // The rebuild may have moved the selection (the first zone appeared, a token scrolled away): read what it shows now.
        if readTarget(state) != result.request.target { state.effects.enqueue(.readServer) }
    }

    /// Where the world's clock stands: the clock on screen asks for a frame when its second changes.
    static func note(_ time: WorldTime, state: inout InspectorState) {
        if time.now / 1000 != state.clock.now / 1000 { state.needsRedraw = true }
        state.clock.now = time.now
        state.timeline.note(time)
    }

    /// The zone the records pane shows among `zones`: the one `selected`,
    /// while listed; until the person picks one (`chosen`), the first custom
    /// zone (one may appear later, in a lesson).
    static func zoneToShow(in zones: [ZoneListItem], selected: ZoneKey?, chosen: Bool) -> ZoneEntry? {
        let entries = zones.compactMap(\.entry)
        let preferred = entries.first { !$0.zoneID.isDefaultZone && $0.scope != .public } ?? entries.first
        if let selected, let entry = entries.first(where: { $0.key == selected }), chosen || preferred?.key == selected {
            return entry
        }
        return preferred
    }

    /// Fills the snapshot from what was read of the world (`world`; `nil`:
    /// nothing new, the selection moved or the screen changed) and brings
    /// the selections in line with it.
    static func rebuild(_ state: inout InspectorState, with world: WorldSnapshot?) {
        var snapshot = state.snapshot
        if let world {
            snapshot.devices = world.devices
            snapshot.events = world.events
            snapshot.eventCount = world.eventCount
            snapshot.writer = world.writer
            snapshot.lesson = world.lesson
            note(world.time, state: &state)
        }
        if !snapshot.devices.indices.contains(state.focusedDevice) { state.focusedDevice = 0 }
        snapshot.faultRules = state.world.reading.faultRules
        let layout = InspectorLayout(
            size: state.screenSize, hasLesson: snapshot.lesson != nil,
            arrangement: state.lessonMode.arrangement(code: snapshot.lesson?.code != nil))

        guard snapshot.devices.indices.contains(state.focusedDevice) else {
            state.snapshot = snapshot
            return
        }
        let device = snapshot.devices[state.focusedDevice]
        let focused = world?.focused.flatMap { $0.device == device.name ? $0 : nil }
        if let focused {
            snapshot.zones = focused.zones
            snapshot.tokens = focused.tokens
            snapshot.tokenTotal = focused.tokenTotal
            snapshot.notifications = focused.notifications
            snapshot.notificationTotal = focused.notificationTotal
            state.world.rewind = focused.rewind
        }

        // Zones.
        let shown = zoneToShow(in: snapshot.zones, selected: state.selectedZone, chosen: state.zoneChosen)
        if shown?.key != state.selectedZone { state.showZone(shown?.key) }
        if let shown, let index = snapshot.zones.firstIndex(of: .zone(shown)) {
            state.zoneTable.select(index, rowCount: snapshot.zones.count, visibleRows: layout.visibleRows(of: .zones))
        }

        // Records of the selected zone: the model applies the changes since it last looked.
        var rowsWait = false
        if let zone = shown {
            let source = RecordRowsModel.Source(zone: zone.key, device: device.name)
            let copy = focused?.records.flatMap { $0.zone == zone.key ? $0 : nil }
            if copy == nil, state.world.recordRows.source != source {
                // Another zone or device than the rows show: no rows until the read brings them
                // (the selected record is kept: the read finds it by name).
                snapshot.records = RecordList()
                state.world.recordRows.invalidate()
                rowsWait = true
            } else {
                // `snapshot` then holds the only reference to the rows: they are updated in place, not copied.
                state.snapshot.records = RecordList()
                if state.recordSort != state.world.recordRowsSort {
                    state.world.recordRowsSort = state.recordSort
                    state.world.recordRows.reorder(&snapshot.records, by: RecordRowOrder(state.recordSort))
                }
                if let copy {
                    SnapshotBuilder.records(
                        &snapshot.records, of: zone, device: device.name, copy: copy, reading: state.world.reading,
                        model: &state.world.recordRows)
                    // Applied: a later rebuild must not apply them again.
                    state.world.reading.records = nil
                }
            }
            snapshot.records.key = RecordListKey(
                zone: zone.key, device: device.name, serverSequence: zone.lastSequence, serverRecordCount: zone.recordCount,
                deviceToken: zone.deviceToken, deviceGeneration: state.world.generations[device.name, default: 0])
        } else {
            snapshot.records = RecordList()
            state.world.recordRows.invalidate()
        }
        snapshot.records.apply(filter: state.filter, mode: state.recordsMode, sort: state.recordSort)
        if !rowsWait {
            let recordRows = snapshot.records.count
            let recordVisible = layout.visibleRows(of: .records)
            if let name = state.selectedRecordName {
                let (index, _) = snapshot.records.index(of: name)
                state.recordTable.select(min(index, max(0, recordRows - 1)), rowCount: recordRows, visibleRows: recordVisible)
            } else {
                state.recordTable.clamp(rowCount: recordRows, visibleRows: recordVisible)
            }
            state.selectedRecordName = state.recordTable.selection.flatMap { snapshot.records.row(at: $0)?.name }
        }

        // Tokens, newest first on screen.
        let tokenRows = snapshot.tokens.count
        let tokenRow = state.tokenSelection.map { snapshot.tokenTotal - 1 - $0 } ?? 0
        state.tokenTable.select(min(max(0, tokenRow), max(0, tokenRows - 1)), rowCount: tokenRows, visibleRows: layout.visibleRows(of: .tokens))
        if state.pane == .tokens, let row = state.tokenTable.selection, tokenRows > 0 {
            let receipt = snapshot.tokens[tokenRows - 1 - row]
            if let read = state.world.rewind, read.receipt == receipt {
                snapshot.rewind = read
            } else if snapshot.rewind?.receipt != receipt {
                // Not read yet (the selection just moved): the next read brings it.
                snapshot.rewind = Rewind(receipt: receipt, meaning: "reading the server…", changes: [], moreComing: false, error: nil)
            }
        } else if tokenRows == 0 {
            snapshot.rewind = nil
        }

        // Notifications: on their way first, then delivered, newest first.
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

    /// A lesson built its world again: selections start over (the focused
    /// device, the pane, the side shown and the clock's pace stay).
    static func replaceWorld(with world: WorldSnapshot, state: inout InspectorState) {
        var fresh = InspectorState(
            clock: ClockStatus(now: world.time.now, isPaused: state.clock.isPaused, speed: state.clock.speed), screenSize: state.screenSize)
        fresh.clock.isLive = state.clock.isLive
        fresh.focusedDevice = state.focusedDevice
        fresh.pane = state.pane
        fresh.recordsMode = state.recordsMode
        fresh.lessonMode = state.lessonMode
        fresh.effects = state.effects
        fresh.realNow = state.realNow
        fresh.timeline = state.timeline
        fresh.world.recordRows = state.world.recordRows
        fresh.world.recordRows.invalidate()
        fresh.world.recordRowsSort = state.world.recordRowsSort
        fresh.timeline.anchor(real: world.time.real, world: world.time.now)
        rebuild(&fresh, with: world)
        state = fresh
    }

    // MARK: Commands in words

    /// The device a device action acts on.
    static func device(of command: InspectorCommand) -> String? {
        switch command {
        case .createZone(_, let device), .deleteZone(_, let device), .purgeZone(_, let device), .encryptedDataReset(let device),
             .saveRecord(_, let device), .deleteRecord(_, let device), .fetch(let device), .fetchOneBatch(_, let device),
             .sync(let device), .setAutoFetch(_, let device), .setOnline(_, let device), .compact(let device), .burst(_, let device):
            device
        default:
            nil
        }
    }

    /// A command in a few words ("fetch", "save note-1").
    static func describe(_ command: InspectorCommand) -> String {
        switch command {
        case .createZone(let name, _): "create zone \(name)"
        case .deleteZone(let zone, _): "delete zone \(zone.zoneName)"
        case .purgeZone(let zone, _): "purge zone \(zone.zoneName)"
        case .encryptedDataReset: "encrypted-data reset"
        case .saveRecord(let record, _): "save \(record.recordID.recordName)"
        case .deleteRecord(let id, _): "delete \(id.recordName)"
        case .fetch: "fetch"
        case .fetchOneBatch(let limit, _): "fetch one batch (resultsLimit \(limit))"
        case .sync: "sync"
        case .setAutoFetch: "auto-fetch"
        case .setOnline(let on, _): on ? "going online" : "going offline"
        case .compact: "compact history"
        case .burst(let n, _): "burst of \(n)"
        case .setWriterRunning: "writer"
        case .setPaused: "pause"
        case .step: "step"
        case .setSpeed: "speed"
        case .lessonNext: "next step"
        case .lessonRestart: "restart the lesson"
        case .lessonGoTo(let n): "go to step \(n)"
        case .redraw: "repaint"
        case .copy: "copy"
        case .quit: "quit"
        case .addFault: "fault"
        case .clearFaults: "clear faults"
        }
    }
}
