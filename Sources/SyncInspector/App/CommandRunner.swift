import SyncCore
import SyncWorlds

/// Keys and commands: a key goes through ``InspectorKeys`` (pure: state in,
/// state and commands out); each command then runs on the world and its
/// outcome is said on the message line.
extension InspectorController {
    /// Handles a key and runs the effects it asked for to completion (the
    /// in-process world, and tests: the outcome is on screen when it returns).
    /// The loop of a live world uses `receive(_:)` instead, and its effects
    /// run off the key path.
    /// - Returns: false when the person asked to quit.
    @discardableResult
    public func handle(_ key: KeyEvent) async -> Bool {
        guard await receive(key) else { return false }
        await runEffectsToCompletion()
        return true
    }

    /// The update step for a key: the state changes at once (``InspectorKeys``),
    /// commands that need only the state run here, and the ones that need the
    /// world are queued as effects, followed by a read of the server.
    /// - Returns: false when the person asked to quit.
    func receive(_ key: KeyEvent) async -> Bool {
        log?.write("key \(key)")
        let wasWaitingToDraw = state.needsRedraw
        state.needsRedraw = false
        let commands = InspectorKeys.handle(key, state: &state)
        for command in commands {
            if needsWorld(command) {
                if effectsRunConcurrently, let running = busyWith {
                    log?.write("command \(command) (queued)")
                    InspectorUpdate.queued(Self.describe(command), behind: running, state: &state)
                }
                enqueue(.command(command))
            } else {
                guard await execute(command) else { return false }
            }
        }
        // A key that changed nothing (an unbound key) draws nothing.
        if state.needsRedraw || !commands.isEmpty {
            // The selection may have moved: show it now, and read what it shows.
            if effectsRunConcurrently { rebuild() }
            enqueue(.readServer)
        }
        state.needsRedraw = state.needsRedraw || wasWaitingToDraw
        return true
    }

    /// Whether a command acts on the world (it then runs as an effect, one at
    /// a time), or only on the inspector's own state (it runs at once).
    func needsWorld(_ command: InspectorCommand) -> Bool {
        switch command {
        case .quit, .redraw, .copy, .setPaused, .setSpeed: false
        case .step: world.isVirtualTime
        default: true
        }
    }

    /// Runs one command and applies what it did to the state (``InspectorUpdate``).
    /// Returns false for `.quit`.
    @discardableResult
    public func execute(_ command: InspectorCommand) async -> Bool {
        guard let outcome = await run(command) else { return false }
        apply(outcome)
        return true
    }

    /// The update step for a command's outcome.
    func apply(_ outcome: InspectorOutcome) {
        InspectorUpdate.apply(outcome, to: &state)
        if outcome != .nothing { log?.write("outcome \(state.message?.text ?? "")") }
    }

    /// Runs one command on the world (or on the runtime: the clock's anchor,
    /// a repaint) and returns what it did, without touching the state;
    /// `nil` for `.quit`.
    func run(_ command: InspectorCommand) async -> InspectorOutcome? {
        log?.write("command \(command)")
        switch command {
        case .quit:
            return nil
        case .addFault, .clearFaults:
            return .faults(await runFault(command))
        case .redraw:
            repaintRequested = true
            return .nothing
        case .copy(let text, let what):
            return .copied(what: what, clipboard?(text) ?? .unavailable("no terminal is attached."))
        case .setPaused where !world.isVirtualTime, .setSpeed where !world.isVirtualTime, .step where !world.isVirtualTime:
            return .clock(.live)
        case .setPaused(let paused):
            reanchor()
            return .clock(.paused(paused))
        case .setSpeed(let speed):
            reanchor()
            return .clock(.speed(speed))
        case .step:
            let before = world.eventCount
            if let next = world.nextEventTime, next > world.clock.now() {
                await world.advance(by: next - world.clock.now())
            } else {
                await world.advance(by: world.nextEventTime == nil ? 1_000 : 0)
            }
            reanchor()
            let happened = world.recentEvents(world.eventCount - before)
            return .clock(.stepped(to: world.clock.now(), lastEvent: happened.last.map { "\($0)" }))
        case .lessonNext:
            guard let lesson else { return .nothing }
            guard !lesson.isFinished else { return .lesson(LessonOutcome(.alreadyOver, stepCount: lesson.stepCount)) }
            let index = lesson.stepsRun
            let summary = lesson.nextStepSummary ?? ""
            let result = await lesson.runNextStep()
            reanchor()
            for line in lesson.lastStep { log?.write("lesson: \(line)") }
            return .lesson(await afterLessonStep(.ranStep(step: index, summary: summary, result: result), lesson))
        case .lessonRestart:
            guard let lesson else { return .nothing }
            do {
                try lesson.restart()
            } catch {
                return .lesson(LessonOutcome(.rebuildFailed(reason: "\(error)"), stepCount: lesson.stepCount))
            }
            return .lesson(await afterLessonStep(.restarted, lesson))
        case .lessonGoTo(let target):
            guard let lesson else { return .nothing }
            do {
                try await lesson.goTo(stepsRun: target)
            } catch {
                return .lesson(LessonOutcome(.rebuildFailed(reason: "\(error)"), stepCount: lesson.stepCount))
            }
            reanchor()
            return .lesson(await afterLessonStep(.wentTo(stepsRun: lesson.stepsRun), lesson))
        case .setWriterRunning(let running):
            guard let writer = world.writer else { return .nothing }
            writer.isRunning = running
            if running { writer.nextActionTime = world.clock.now() + min(writer.interval, 800) }
            world.note(running ? "writer started" : "writer stopped")
            return .writer(running: running, interval: writer.interval)
        default:
            return await performDeviceCommand(command).map(InspectorOutcome.device) ?? .nothing
        }
    }

    /// Runs a device action on the world and says what it did, without
    /// touching the state (``InspectorUpdate/apply(_:to:)`` does that).
    /// `nil`: not a device action.
    func performDeviceCommand(_ command: InspectorCommand) async -> CommandOutcome? {
        let name: String
        switch command {
        case .createZone(_, let device), .deleteZone(_, let device), .purgeZone(_, let device), .encryptedDataReset(let device),
             .saveRecord(_, let device), .deleteRecord(_, let device), .fetch(let device), .fetchOneBatch(_, let device),
             .sync(let device), .setAutoFetch(_, let device), .setOnline(_, let device), .compact(let device), .burst(_, let device):
            name = device
        default:
            return nil
        }
        let action = Self.describe(command)
        guard let device = world.device(named: name) else {
            return CommandOutcome(device: name, action: action, result: .refused(InspectorMessage("There is no device named \(name).", kind: .error)))
        }
        let needsNetwork: Bool = switch command {
        case .fetch, .fetchOneBatch, .sync, .purgeZone, .encryptedDataReset, .compact: true
        default: false
        }
        if needsNetwork && !device.isOnline {
            return CommandOutcome(
                device: name, action: action,
                result: .refused(InspectorMessage("\(name) is offline: that needs the network. Press o to bring it back online.", kind: .warning)))
        }
        actionDepth += 1
        notableDuringAction = nil
        recoveredDuringAction = false
        let runsBefore = device.engine.fetchRuns.count
        let tokensBefore = device.tokenHistory.count
        let notificationsBefore = device.notifications.count
        // What the push service holds for the device (an observer that sees the server's inside says).
        let observer = self.observer
        let heldBefore = observer.seesServerInternals
            ? await observer.pendingNotifications(forDevice: device.deviceID).filter { $0.state == .heldWhileOffline }.map(\.notification)
            : nil
        var outcome: ActionOutcome
        var success: String
        switch command {
        case .createZone(let zoneName, _):
            outcome = await world.createZone(zoneName, on: device)
            success = device.isOnline ? "\(name) created zone \(zoneName) on the server." : "\(name) created zone \(zoneName) locally; it is sent when the device is back online."
        case .deleteZone(let zone, _):
            outcome = await world.deleteZone(zone, on: device)
            success = "\(name) deleted zone \(zone.zoneName); the other devices drop it on their next fetch."
        case .purgeZone(let zone, _):
            outcome = await world.purgeZone(zone, on: device)
            success = "Zone \(zone.zoneName) purged: devices learn it on their next fetch and must not upload it again."
        case .encryptedDataReset:
            outcome = await world.encryptedDataReset(on: device)
            success = "\(device.user)'s encrypted data was reset: every private zone is gone; devices upload their copies again."
        case .saveRecord(let record, _):
            outcome = await world.save(record, on: device)
            let tag = device.cachedRecords(in: record.recordID.zoneID).first { $0.recordID == record.recordID }?.recordChangeTag
            success = device.isOnline
                ? "\(name) saved \(record.recordID.recordName) in \(record.recordID.zoneID.zoneName)\(tag.map { " (tag \($0))" } ?? ""); the server pushes to the other devices."
                : "\(name) saved \(record.recordID.recordName) locally; it is sent when the device is back online (o)."
        case .deleteRecord(let id, _):
            outcome = await world.delete(id, on: device)
            success = device.isOnline
                ? "\(name) deleted \(id.recordName); the others remove it with their next fetch."
                : "\(name) deleted \(id.recordName) locally; the deletion is sent when the device is back online (o)."
        case .fetch:
            outcome = await world.fetch(on: device)
            let runs = device.engine.fetchRuns.dropFirst(runsBefore)
            let applied = runs.reduce(0) { $0 + $1.changesApplied }
            let tokens = device.tokenHistory.count - tokensBefore
            success = "\(name) fetched: \(Plural.count(tokens, "token")) received, \(Plural.count(applied, "change")) applied."
            if let failed = runs.last(where: { $0.succeeded == false }) {
                outcome = .failed(CloudError(.internalError, failed.errorMessage ?? "The fetch failed."))
            }
        case .fetchOneBatch(let limit, _):
            outcome = await world.fetchOneBatch(on: device, resultsLimit: limit)
            let more = outcome == .done("fetched one batch; more to fetch")
            if let receipt = device.tokenHistory.dropFirst(tokensBefore).last {
                let place = receipt.zoneID.map { "zone \($0.zoneName)" } ?? "the \(receipt.scope.rawValue) database"
                success = "\(name) fetched one batch of \(place) (resultsLimit \(limit)): \(Plural.count(receipt.changeCount, "change")), token …\(receipt.token.shortForm), moreComing=\(receipt.moreComing)"
                    + (more ? ". F fetches the next batch." : "; nothing more to fetch.")
            } else {
                success = "\(name) fetched one batch: nothing new."
            }
        case .sync:
            outcome = await world.sync(device)
            success = "\(name) sent its changes and fetched."
        case .setAutoFetch(let on, _):
            device.engine.autoFetchOnPush = on
            world.note("auto-fetch on push \(on ? "on" : "off")", device: name)
            outcome = .done("auto-fetch")
            success = on ? "\(name) fetches when a push arrives." : "\(name) now only records pushes; press f to fetch by hand."
        case .setOnline(let online, _):
            outcome = await world.setOnline(online, device: device)
            if online {
                let arrived = device.notifications.dropFirst(notificationsBefore).map(\.notification)
                let onTheWay = observer.seesServerInternals
                    ? await observer.pendingNotifications(forDevice: device.deviceID).compactMap { pending -> Milliseconds? in
                        if case .inTransit(let at) = pending.state { return at }
                        return nil
                    }
                    : nil
                success = Self.backOnlineMessage(
                    device: name, heldBefore: heldBefore, arrived: arrived, arrivesAt: onTheWay?.min(), now: world.clock.now())
            } else {
                success = "\(name) is offline: its changes wait, and the push service holds only the latest notification for it."
            }
        case .compact:
            outcome = await world.compact(on: device)
            success = "\(device.user)'s history was compacted: every older token has expired. Fetch (f) on a device to see changeTokenExpired."
        case .burst(let count, _):
            // A limit of this screen, not a server error: said as a warning, in words.
            guard let writer = world.writer, let zone = writer.zones[name] else {
                actionDepth -= 1
                return CommandOutcome(device: name, action: action, result: .refused(InspectorMessage(
                    world.writer == nil
                        ? "W (a write burst) needs the demo's writer, and this world has none: save records with n instead."
                        : "The writer does not write on \(name): try W on a device it writes on (\(world.writer?.zones.keys.sorted().joined(separator: ", ") ?? "")).",
                    kind: .warning)))
            }
            let eventsBefore = world.eventCount
            await writer.burst(count, on: device, in: world)
            outcome = .done("burst")
            let requests = world.recentEvents(world.eventCount - eventsBefore).filter { event in
                guard event.device == name, case .sync(.changesSent) = event.kind else { return false }
                return true
            }.count
            success = Self.burstMessage(device: name, saves: count, zone: zone.zoneName, requests: requests, online: device.isOnline)
        default:
            outcome = .done("")
            success = ""
        }
        actionDepth -= 1
        let result: CommandOutcome.Result
        switch outcome {
        case .done:
            result = .done(success: success, notable: notableDuringAction, recovered: recoveredDuringAction)
        case .failed(let error):
            result = .failed(error)
        }
        notableDuringAction = nil
        return CommandOutcome(device: name, action: action, result: result)
    }

    /// What a write burst did, in the terms the Push pane shows: one request
    /// is one commit, and one commit makes one push per subscription, whatever
    /// the number of records (the × column then shows 1, the fetch +N).
    static func burstMessage(device name: String, saves: Int, zone: String, requests: Int, online: Bool) -> String {
        let notes = Plural.count(saves, "note")
        guard online else {
            return "\(name) saved \(notes) in \(zone) locally; they are sent when it is back online (o)."
        }
        switch requests {
        case 0:
            return "\(name) saved \(notes) in \(zone); nothing was sent yet."
        case 1:
            return "\(name) saved \(notes) in \(zone) and sent them in one request: one commit, so each other device gets one push for all \(saves) (Push pane: × 1, fetch +\(saves))."
        default:
            return "\(name) saved \(notes) in \(zone) and sent them in \(requests) requests: the pushes of those \(requests) commits coalesce (Push pane: ×, up to \(requests)→1)."
        }
    }

    /// What coming back online did with the notification the push service
    /// held. `heldBefore` is `nil` when the server's inside cannot be seen
    /// (a server over HTTP); `arrivesAt`, when the released one is due.
    static func backOnlineMessage(
        device name: String, heldBefore: [CloudNotification]?, arrived: [CloudNotification], arrivesAt: Milliseconds?, now: Milliseconds
    ) -> String {
        let tail = "it sent its changes and fetches."
        func merged(_ n: CloudNotification) -> String { n.coalescedCount > 1 ? " (\(n.coalescedCount)→1)" : "" }
        guard let heldBefore else {
            guard let first = arrived.first else {
                return "\(name) is back online: \(tail) A notification held for it comes with its next poll."
            }
            return "\(name) is back online: \(arrived.count == 1 ? "a notification\(merged(first))" : Plural.count(arrived.count, "notification")) arrived; \(tail)"
        }
        guard let held = heldBefore.last else {
            if let first = arrived.first {
                return "\(name) is back online: \(arrived.count == 1 ? "a notification\(merged(first))" : Plural.count(arrived.count, "notification")) arrived; \(tail)"
            }
            return "\(name) is back online: no notification was held for it; \(tail)"
        }
        if arrived.contains(where: { $0.notificationID == held.notificationID }) {
            return "\(name) is back online: the notification held for it\(merged(held)) arrived; \(tail)"
        }
        let when = arrivesAt.map { " in \(Format.duration(max(0, $0 - now)))" } ?? ""
        return "\(name) is back online: the push service sent the notification it held\(merged(held)); it arrives\(when). Meanwhile \(tail)"
    }

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

    /// After a lesson step ran (or the world was rebuilt): the rows and the
    /// server are read again (a step may write a device's store directly: a
    /// scenario's client mistakes), and the outcome says what the lesson looks like.
    func afterLessonStep(_ kind: LessonOutcome.Kind, _ lesson: any InspectorLesson) async -> LessonOutcome {
        invalidateRecordRows()
        await refresh()
        return LessonOutcome(
            kind, stepCount: lesson.stepCount, stepDevice: lesson.lastStepDevice, touched: lesson.lastTouched,
            isFinished: lesson.isFinished, now: realClock.now())
    }

    func say(_ text: String, kind: InspectorMessage.Kind = .info) {
        InspectorKeys.say(text, kind: kind, state: &state)
    }
}
