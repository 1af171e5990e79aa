import SyncCore
import SyncClient
import SyncWorlds

/// Commands on the world: each runs on the world and returns what it did
/// (an ``InspectorOutcome``), without touching the state;
/// ``InspectorUpdate`` says it on the message line.
extension InspectorWorld {
    /// Runs one command on the world and returns what it did, without
    /// touching the state. (Commands on the inspector alone — quit, repaint,
    /// copy, pause, speed — never reach the world: ``InspectorReducer`` answers them.)
    func run(_ command: InspectorCommand) async -> InspectorOutcome {
        switch command {
        case .addFault, .clearFaults:
            return .faults(runFault(command))
        case .step:
            let before = world.eventCount
            if let next = world.nextEventTime, next > world.clock.now() {
                await world.advance(by: next - world.clock.now())
            } else {
                await world.advance(by: world.nextEventTime == nil ? 1_000 : 0)
            }
            let happened = world.recentEvents(world.eventCount - before)
            let devices = world.devices.map { (name: $0.name, deviceID: $0.deviceID) }
            return .clock(.stepped(to: world.clock.now(), lastEvent: happened.last.map { Self.steppedText($0, devices: devices) }))
        case .lessonNext:
            guard let lesson else { return .nothing }
            guard !lesson.isFinished else { return .lesson(LessonOutcome(.alreadyOver, stepCount: lesson.stepCount)) }
            let index = lesson.stepsRun
            let summary = lesson.nextStepSummary ?? ""
            let result = await lesson.runNextStep()
            for line in lesson.lastStep { log?("lesson: \(line)") }
            return .lesson(afterLessonStep(.ranStep(step: index, summary: summary, result: result), lesson))
        case .lessonRestart:
            guard let lesson else { return .nothing }
            do {
                try lesson.restart()
            } catch {
                return .lesson(LessonOutcome(.rebuildFailed(reason: "\(error)"), stepCount: lesson.stepCount))
            }
            return .lesson(afterLessonStep(.restarted, lesson))
        case .lessonGoTo(let target):
            guard let lesson else { return .nothing }
            do {
                try await lesson.goTo(stepsRun: target)
            } catch {
                return .lesson(LessonOutcome(.rebuildFailed(reason: "\(error)"), stepCount: lesson.stepCount))
            }
            return .lesson(afterLessonStep(.wentTo(stepsRun: lesson.stepsRun), lesson))
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

    /// The faults overlay's rule goes in (or every rule goes), when the world takes faults.
    func runFault(_ command: InspectorCommand) -> FaultsOutcome {
        guard let target = world as? any FaultInjectingWorld else { return .notInjectable }
        switch command {
        case .addFault(let rule):
            target.injectFault(rule)
            return .added(rule)
        default:
            target.clearInjectedFaults()
            return .cleared
        }
    }

    /// What the lesson looks like after a step ran (or its world was built
    /// again); the update step reads the rows and the server again after it
    /// (a step may write a device's store directly: a scenario's client mistakes).
    func afterLessonStep(_ kind: LessonOutcome.Kind, _ lesson: any InspectorLesson) -> LessonOutcome {
        LessonOutcome(
            kind, stepCount: lesson.stepCount, stepDevice: lesson.lastStepDevice, touched: lesson.lastTouched,
            isFinished: lesson.isFinished, now: realClock.now())
    }

    /// Runs a device action on the world and says what it did, without
    /// touching the state (``InspectorUpdate/apply(_:to:)`` does that; what
    /// happened meanwhile, a sync error or a retry, the update step heard
    /// from the world's events and adds). `nil`: not a device action.
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
        let action = InspectorReducer.describe(command)
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
            // Which devices' tokens the compaction expired: those behind it. A
            // device in sync keeps a token the server still accepts.
            var expired: [(device: String, zone: String)] = []
            for other in world.devices {
                guard let zones = try? await observer.zoneSummaries(user: other.user, environment: other.environment) else { continue }
                for zone in zones where !zone.zoneID.isDefaultZone {
                    guard let token = other.cachedZoneToken(for: zone.zoneID),
                          let problem = try? await observer.validate(
                              token, zoneID: zone.zoneID, scope: zone.scope, user: other.user, environment: other.environment),
                          problem.code == .changeTokenExpired else { continue }
                    let place = zone.zoneID.ownerName == other.user ? zone.zoneID.zoneName : "\(zone.zoneID.zoneName)@\(zone.zoneID.ownerName)"
                    expired.append((other.name, place))
                }
            }
            let offline = Set(world.devices.filter { !$0.isOnline }.map(\.name))
            success = Self.compactedMessage(user: device.user, expired: expired, offline: offline)
        case .burst(let count, _):
            // A limit of this screen, not a server error: said as a warning, in words.
            guard let writer = world.writer, let zone = writer.zones[name] else {
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
        let result: CommandOutcome.Result
        switch outcome {
        case .done:
            result = .done(success: success, notable: nil, recovered: false)
        case .failed(let error):
            result = .failed(error)
        }
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

    /// The last thing a step of the clock (`.`) did, as the event log says
    /// it: devices by name, durations, no notification UUIDs and no clock
    /// readings in milliseconds.
    static func steppedText(_ event: WorldEvent, devices: [(name: String, deviceID: String)]) -> String {
        event.readableText { id in devices.first { $0.deviceID == id }?.name ?? id }
    }

    /// What a compaction did, by device: the tokens it expired (`expired`:
    /// each device and zone), so that `f` is pressed where it shows
    /// `changeTokenExpired`, or, when every device was in sync, how to see it.
    static func compactedMessage(user: String, expired: [(device: String, zone: String)], offline: Set<String> = []) -> String {
        guard !expired.isEmpty else {
            return "\(user)'s history was compacted, and no token expired: every device was in sync, and a fetch from the latest "
                + "token still works. To see changeTokenExpired, take a device offline (o), save on another, compact (c), then fetch (f) on the first."
        }
        var devices: [String] = []
        var zones: [String: [String]] = [:]
        for (device, zone) in expired {
            if zones[device] == nil { devices.append(device) }
            zones[device, default: []].append(zone)
        }
        let list = devices.map { "\($0) (\(zones[$0, default: []].joined(separator: ", ")))" }.joined(separator: ", ")
        let first = devices[0]
        return "\(user)'s history was compacted: the tokens of devices that were behind expired: \(list). "
            + (offline.contains(first) ? "Bring \(first) back online (o) and it fetches into changeTokenExpired" : "Fetch (f) on \(first) to see changeTokenExpired")
            + "; a device in sync keeps its token."
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
}
