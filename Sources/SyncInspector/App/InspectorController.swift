import SyncCore
import SyncServer
import SyncSimulation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A monotonic real-time clock in milliseconds (the inspector maps it to the
/// simulation's virtual time with the speed factor).
public protocol RealClock {
    func now() -> Milliseconds
}

/// `CLOCK_MONOTONIC`.
public struct MonotonicClock: RealClock {
    public init() {}

    public func now() -> Milliseconds {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Milliseconds(spec.tv_sec) * 1000 + Milliseconds(spec.tv_nsec / 1_000_000)
    }
}

/// Runs the inspector: keys → ``InspectorKeys`` → commands on the
/// ``Simulation`` → a fresh snapshot → ``InspectorView`` → the terminal.
///
/// Not thread-safe; everything, curses included, happens on the task that
/// calls ``run(backend:)``. Simulation calls never suspend, so nothing hops
/// threads.
public final class InspectorController {
    /// The world on screen (a lesson's restart replaces it): an in-process
    /// ``Simulation`` or one device on a real server (``RemoteWorld``).
    public private(set) var world: SyncWorld
    /// The world as an in-process simulation, for callers that built the
    /// controller with one (tests, benchmarks). The controller itself goes
    /// through ``world``; nothing calls this for a device on a real server.
    public var simulation: Simulation {
        guard let simulation = world as? Simulation else {
            preconditionFailure("InspectorController.simulation asked of a world that is not a Simulation; use world.")
        }
        return simulation
    }
    /// The lesson being played, if any.
    public let lesson: LessonSession?
    /// Whatever must live as long as the simulation (the runner that owns its files).
    public let keepAlive: AnyObject?
    public private(set) var state: InspectorState
    public var view: InspectorView
    public var log: InspectorLog?
    public let realClock: any RealClock
    /// Simulation-driven frames come at most this often (keys draw at once).
    public var frameInterval: Milliseconds = 33
    /// On a live world, how long the loop waits for a key before looking for
    /// pushes that arrived (it blocks in between, it does not spin).
    public var liveTick: Milliseconds = 200

    /// Bumped by every sync event of a device: its cache may have changed.
    private var generations: [String: Int] = [:]
    /// Set while an action runs: something worth saying that happened meanwhile.
    private var actionDepth = 0
    private var notableDuringAction: InspectorMessage?
    /// Set when an error during the action was followed by an answer from the server (a retry worked).
    private var recoveredDuringAction = false
    private var anchorReal: Milliseconds = 0
    private var anchorVirtual: Milliseconds = 0
    private var repaintRequested = false
    /// Copies text to the terminal's clipboard (`y`): the backend's, set by ``run(backend:)``.
    public var clipboard: ((String) -> Clipboard.Outcome)?
    /// What a server that is not in process said at the last ``refreshServer()``
    /// (its observer is asked asynchronously, once per tick and after actions).
    private var served = Served()
    private struct ServedZone: Hashable {
        var scope: DatabaseScope
        var zoneID: RecordZoneID
        var token: ServerChangeToken?
    }
    private struct Served {
        var summaries: [ServerZoneSummary] = []
        var removed: [ServerRemovedZone] = []
        var publicZone: ServerZoneSummary?
        var pending: [ServedZone: Int] = [:]
        var problems: [ServedZone: CloudError] = [:]
        var records: [ServedZone: [Record]] = [:]
    }
    /// How many times the record rows were rebuilt (they are cached otherwise).
    private(set) var recordListBuilds = 0

    /// - Parameters:
    ///   - simulation: the world to show (ignored when `lesson` is given: its world is shown).
    ///   - lesson: a lesson to play step by step (Enter), with its narrative pane.
    ///   - keepAlive: kept as long as the controller (for example the runner that built the world).
    public convenience init(
        simulation: Simulation, lesson: LessonSession? = nil, keepAlive: AnyObject? = nil, paused: Bool = false, speed: Double = 1,
        screenSize: Size = Size(width: 80, height: 24), theme: Theme = .monochrome, realClock: any RealClock = MonotonicClock(),
        log: InspectorLog? = nil
    ) {
        self.init(
            world: simulation, lesson: lesson, keepAlive: keepAlive, paused: paused, speed: speed, screenSize: screenSize,
            theme: theme, realClock: realClock, log: log)
    }

    /// - Parameter world: the world to show; a world on real time (a device on
    ///   a real server) shows "live", and the clock keys do not apply to it.
    public init(
        world: SyncWorld, lesson: LessonSession? = nil, keepAlive: AnyObject? = nil, paused: Bool = false, speed: Double = 1,
        screenSize: Size = Size(width: 80, height: 24), theme: Theme = .monochrome, realClock: any RealClock = MonotonicClock(),
        log: InspectorLog? = nil
    ) {
        self.world = lesson?.simulation ?? world
        self.lesson = lesson
        self.keepAlive = keepAlive
        self.realClock = realClock
        self.log = log
        self.view = InspectorView(theme: theme)
        state = InspectorState(
            clock: ClockStatus(now: self.world.clock.now(), isPaused: paused, speed: max(0.01, speed)), screenSize: screenSize)
        if let lesson {
            state.message = InspectorMessage("Lesson: \(lesson.scenario.title ?? lesson.scenario.name). Enter runs the next step; p steps back, t lists the steps, b starts again.")
            lesson.onRestart = { [unowned self] simulation in self.switchTo(simulation) }
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
        refresh()
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
            lesson.runner.simulationEventObserver = { [unowned self] event in self.observe(event) }
        } else {
            world.eventObserver = { [unowned self] event in self.observe(event) }
        }
    }

    /// Shows another world (a restarted lesson): selections start over.
    private func switchTo(_ simulation: Simulation) {
        self.world = simulation
        generations = [:]
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

    /// Asks a server that is not in process (``SyncWorld/serverObserver``)
    /// what the focused device's zones look like there, then refreshes. Does
    /// nothing for an in-process simulation, whose server is read directly.
    public func refreshServer() async {
        guard !(world is Simulation), world.devices.indices.contains(state.focusedDevice) else { return }
        let device = world.devices[state.focusedDevice]
        let observer = world.serverObserver
        let user = device.user
        var next = Served()
        do {
            next.summaries = try await observer.zoneSummaries(user: user)
            next.removed = try await observer.removedZones(user: user)
            next.publicZone = try await observer.publicZoneSummary()
            for summary in next.summaries + [next.publicZone].compactMap({ $0 }) {
                if summary.recordCount != nil {
                    next.records[ServedZone(scope: summary.scope, zoneID: summary.zoneID, token: nil)] =
                        try await observer.records(in: summary.zoneID, scope: summary.scope, user: user)
                }
                guard !summary.zoneID.isDefaultZone, let token = device.cachedZoneToken(for: summary.zoneID) else { continue }
                let key = ServedZone(scope: summary.scope, zoneID: summary.zoneID, token: token)
                if let pending = try await observer.pendingChangeCount(
                    since: token, zoneID: summary.zoneID, scope: summary.scope, user: user) {
                    next.pending[key] = pending
                } else if let problem = try await observer.validate(token, zoneID: summary.zoneID, scope: summary.scope, user: user) {
                    next.problems[key] = problem
                }
            }
        } catch {
            let error = error as? CloudError ?? CloudError(.internalError, "\(error)")
            state.serverReadFailed(source: observer.source, reason: error.reason)
            refresh()
            return
        }
        state.serverReadSucceeded(source: observer.source)
        served = next
        generations[device.name, default: 0] += 1
        refresh()
    }

    /// Fills the snapshot from the simulation and brings selections in line with it.
    public func refresh() {
        var snapshot = state.snapshot
        snapshot.devices = world.devices.map { device in
            DeviceSummary(
                name: device.name, user: device.user, deviceID: device.deviceID, isOnline: device.isOnline,
                autoFetchOnPush: device.engine.autoFetchOnPush, pendingChanges: device.pendingChangeCount,
                fetchRuns: device.engine.fetchRuns.count, lastError: device.lastError)
        }
        if !snapshot.devices.indices.contains(state.focusedDevice) { state.focusedDevice = 0 }
        snapshot.events = Array(world.events.suffix(EventLog.keptEvents))
        snapshot.eventCount = world.eventCount
        snapshot.faultRules = (world as? Simulation)?.server.faultRules.map { "#\($0.id) \($0.rule)" } ?? []
        snapshot.writer = world.writer.map { WriterStatus(isRunning: $0.isRunning, interval: $0.interval, actions: $0.actions) }
        state.clock.now = world.clock.now()
        snapshot.lesson = lesson.map { lesson in
            LessonStatus(
                title: lesson.scenario.title ?? lesson.scenario.name, stepsRun: lesson.stepsRun, stepCount: lesson.stepCount,
                narrative: lesson.narrative, lastStep: lesson.lastStep, nextStep: lesson.nextStepSummary,
                failure: lesson.failure?.message, outline: lesson.outline, checks: lesson.checks)
        }
        let layout = InspectorLayout(size: state.screenSize, hasLesson: snapshot.lesson != nil)

        guard world.devices.indices.contains(state.focusedDevice) else {
            state.snapshot = snapshot
            return
        }
        let device = world.devices[state.focusedDevice]

        // Zones.
        snapshot.zones = readZones(of: device)
        let entries = snapshot.zones.enumerated().compactMap { index, item in item.entry.map { (index, $0) } }
        // Until the person picks a zone, the first custom zone is shown (one may appear later, in a lesson).
        let preferred = entries.first { !$0.1.zoneID.isDefaultZone && $0.1.scope != .public } ?? entries.first
        if state.selectedZone == nil || !entries.contains(where: { $0.1.key == state.selectedZone })
            || (!state.zoneChosen && preferred?.1.key != state.selectedZone) {
            state.selectedZone = preferred?.1.key
            state.selectedRecordName = nil
            state.recordTable = TableState()
        }
        if let index = entries.first(where: { $0.1.key == state.selectedZone })?.0 {
            state.zoneTable.select(index, rowCount: snapshot.zones.count, visibleRows: layout.visibleRows(of: .zones))
        }

        // Records of the selected zone (rebuilt only when the zone changed).
        if let zone = entries.first(where: { $0.1.key == state.selectedZone })?.1 {
            let key = RecordListKey(
                zone: zone.key, device: device.name, serverSequence: zone.lastSequence, serverRecordCount: zone.recordCount,
                deviceToken: zone.deviceToken, deviceGeneration: generations[device.name, default: 0])
            if snapshot.records.key != key {
                snapshot.records = RecordList(key: key, rows: readRecords(of: zone, device: device))
                recordListBuilds += 1
            }
        } else {
            snapshot.records = RecordList()
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
            if snapshot.rewind?.receipt != receipt || snapshot.eventCount != state.snapshot.eventCount || snapshot.rewind == nil {
                snapshot.rewind = rewind(to: receipt, device: device)
            }
        } else if tokenRows == 0 {
            snapshot.rewind = nil
        }

        // Notifications: on their way first, then delivered, newest first.
        snapshot.notifications = readNotifications(of: device)
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

    private func readZones(of device: SimulatedDevice) -> [ZoneListItem] {
        let user = device.user
        let container = world.container
        let summaries: [ServerZoneSummary]
        let removed: [ServerRemovedZone]
        let publicZone: ServerZoneSummary
        if let simulation = world as? Simulation {
            func summary(_ zone: ZoneSummary) -> ServerZoneSummary {
                ServerZoneSummary(
                    scope: zone.scope, zoneID: zone.zoneID, recordCount: zone.recordCount, lastSequence: zone.lastSequence,
                    currentToken: zone.currentToken)
            }
            (summaries, removed, publicZone) = simulation.server.withEngine { engine in
                (engine.zoneSummaries(user: user, container: container).map(summary),
                 engine.removedZones(user: user, container: container).map {
                     ServerRemovedZone(scope: $0.scope, zoneID: $0.zoneID, reason: $0.reason)
                 },
                 summary(engine.publicZoneSummary(container: container)))
            }
        } else {
            summaries = served.summaries
            removed = served.removed
            publicZone = served.publicZone ?? ServerZoneSummary(
                scope: .public, zoneID: .defaultZone(ownerName: user), recordCount: nil, lastSequence: nil, currentToken: nil)
        }
        let pendingZones = Set(((try? device.engine.pendingChanges()) ?? []).filter { $0.kind == .saveZone }.map(\.zoneID))
        var privateZones: [ZoneEntry] = []
        var sharedZones: [ZoneEntry] = []
        var listed = Set<RecordZoneID>()
        for summary in summaries {
            listed.insert(summary.zoneID)
            let deviceToken = summary.zoneID.isDefaultZone ? nil : device.cachedZoneToken(for: summary.zoneID)
            var entry = ZoneEntry(
                scope: summary.scope, zoneID: summary.zoneID, recordCount: summary.recordCount, lastSequence: summary.lastSequence,
                serverToken: summary.currentToken, deviceToken: deviceToken, state: .inSync)
            entry.state = syncState(of: summary, deviceToken: deviceToken, user: user)
            (entry.serverThrough, entry.deviceThrough) = positions(of: summary, deviceToken: deviceToken)
            if summary.scope == .private { privateZones.append(entry) } else { sharedZones.append(entry) }
        }
        for zone in removed where !listed.contains(zone.zoneID) {
            listed.insert(zone.zoneID)
            let state: ZoneSyncState = switch zone.reason {
            case .deleted: .deleted
            case .purged: .purged
            case .encryptedDataReset: .reset
            }
            privateZones.append(ZoneEntry(
                scope: .private, zoneID: zone.zoneID, recordCount: nil, lastSequence: nil, serverToken: nil,
                deviceToken: device.cachedZoneToken(for: zone.zoneID), state: pendingZones.contains(zone.zoneID) ? .notSent : state))
        }
        for zoneID in device.knownZones() where !listed.contains(zoneID) {
            listed.insert(zoneID)
            let scope = device.engine.scope(of: zoneID)
            let entry = ZoneEntry(
                scope: scope, zoneID: zoneID, recordCount: nil, lastSequence: nil, serverToken: nil,
                deviceToken: device.cachedZoneToken(for: zoneID), state: pendingZones.contains(zoneID) ? .notSent : .deleted)
            if scope == .private { privateZones.append(entry) } else { sharedZones.append(entry) }
        }
        for zoneID in pendingZones.sorted() where !listed.contains(zoneID) {
            privateZones.append(ZoneEntry(
                scope: .private, zoneID: zoneID, recordCount: nil, lastSequence: nil, serverToken: nil, deviceToken: nil, state: .notSent))
        }
        func order(_ a: ZoneEntry, _ b: ZoneEntry) -> Bool {
            if a.zoneID.isDefaultZone != b.zoneID.isDefaultZone { return !a.zoneID.isDefaultZone }
            return a.zoneID < b.zoneID
        }
        var items: [ZoneListItem] = [.header(.private)]
        items += privateZones.sorted(by: order).map(ZoneListItem.zone)
        items.append(.header(.shared))
        items += sharedZones.sorted(by: order).map(ZoneListItem.zone)
        items.append(.header(.public))
        items.append(.zone(ZoneEntry(
            scope: .public, zoneID: publicZone.zoneID, recordCount: publicZone.recordCount, lastSequence: publicZone.lastSequence,
            serverToken: nil, deviceToken: nil, state: .noChangeFetching)))
        return items
    }

    /// The changes the server's and the device's tokens stand for: read from
    /// the tokens by an in-process server; over HTTP only the server's latest
    /// change is known, when it says.
    private func positions(of summary: ServerZoneSummary, deviceToken: ServerChangeToken?) -> (Int64?, Int64?) {
        guard !summary.zoneID.isDefaultZone else { return (nil, nil) }
        guard let simulation = world as? Simulation else { return (summary.lastSequence, nil) }
        return simulation.server.withEngine { engine in
            (summary.currentToken.flatMap(engine.sequence(of:)) ?? summary.lastSequence, deviceToken.flatMap(engine.sequence(of:)))
        }
    }

    private func syncState(of summary: ServerZoneSummary, deviceToken: ServerChangeToken?, user: String) -> ZoneSyncState {
        if summary.zoneID.isDefaultZone { return .noChangeFetching }
        guard let deviceToken else { return .notFetched(summary.recordCount ?? 0) }
        let container = world.container
        guard let simulation = world as? Simulation else {
            let key = ServedZone(scope: summary.scope, zoneID: summary.zoneID, token: deviceToken)
            if let pending = served.pending[key] { return pending == 0 ? .inSync : .behind(pending) }
            if let problem = served.problems[key] {
                return problem.code == .changeTokenExpired ? .tokenExpired : .tokenRefused(problem.reason)
            }
            return .inSync
        }
        let (pending, problem) = simulation.server.withEngine { engine in
            let pending = engine.pendingChangeCount(
                since: deviceToken, zoneID: summary.zoneID, user: user, scope: summary.scope, container: container)
            let problem = pending == nil
                ? engine.validate(deviceToken, zoneID: summary.zoneID, user: user, scope: summary.scope, container: container)
                : nil
            return (pending, problem)
        }
        if let pending { return pending == 0 ? .inSync : .behind(pending) }
        if let problem, problem.code == .changeTokenExpired { return .tokenExpired }
        return .tokenRefused(problem?.reason ?? "The server does not accept this token.")
    }

    private func readRecords(of zone: ZoneEntry, device: SimulatedDevice) -> [RecordRow] {
        let user = device.user
        let container = world.container
        // Names sort as a person reads them (note-2 before note-10): see ``NaturalOrder``.
        // Lists already in that order (zero-padded names) cost one pass.
        func natural(_ records: [Record]) -> [Record] {
            NaturalOrder.sorted(records) { $0.recordID.recordName }
        }
        let serverRecords: [Record] = if zone.recordCount == nil {
            []
        } else if let simulation = world as? Simulation {
            simulation.server.withEngine { engine in
                engine.records(in: zone.zoneID, scope: zone.scope, user: user, container: container)
            }
        } else {
            served.records[ServedZone(scope: zone.scope, zoneID: zone.zoneID, token: nil)] ?? []
        }
        let server = natural(serverRecords)
        let cached: [Record] = zone.scope == .public ? [] : natural(device.cachedRecords(in: zone.zoneID))
        let pending = Set(((try? device.engine.pendingChanges()) ?? [])
            .filter { $0.isRecordChange && $0.zoneID == zone.zoneID }
            .compactMap(\.recordName))
        var rows: [RecordRow] = []
        rows.reserveCapacity(max(server.count, cached.count))
        var s = 0
        var c = 0
        while s < server.count || c < cached.count {
            let serverName = s < server.count ? server[s].recordID.recordName : nil
            let cachedName = c < cached.count ? cached[c].recordID.recordName : nil
            let name: String
            var onServer: Record?
            var onDevice: Record?
            if let serverName, let cachedName, serverName == cachedName {
                name = serverName
                onServer = server[s]
                onDevice = cached[c]
                s += 1
                c += 1
            } else if let serverName, cachedName == nil || NaturalOrder.less(serverName, cachedName!) {
                name = serverName
                onServer = server[s]
                s += 1
            } else if let cachedName {
                name = cachedName
                onDevice = cached[c]
                c += 1
            } else {
                break
            }
            let isPending = pending.contains(name)
            let marker: RecordMarker
            switch (onServer, onDevice) {
            case (let server?, let local?): marker = server.recordChangeTag == local.recordChangeTag ? .same : .changed
            case (_?, nil): marker = isPending ? .same : .new
            case (nil, let local?): marker = local.recordChangeTag == nil && isPending ? .localOnly : .deleted
            case (nil, nil): marker = .same
            }
            rows.append(RecordRow(name: name, server: onServer, device: onDevice, marker: marker, hasPendingChange: isPending))
        }
        return rows
    }

    private func rewind(to receipt: TokenReceipt, device: SimulatedDevice) -> Rewind {
        let caller = Caller(user: device.user, deviceID: device.deviceID)
        let database = DatabaseID(container: world.container, scope: receipt.scope)
        let limit = 50
        guard let simulation = world as? Simulation else {
            let error = CloudError(.internalError, "Rewinding a token needs the server's inside; a server over HTTP only shows the token as \(receipt.token).")
            return Rewind(receipt: receipt, meaning: "an opaque token from \(world.serverObserver.source)", changes: [], moreComing: false, error: error)
        }
        let (meaning, outcome) = simulation.server.withEngine { engine -> (String, Result<([Rewind.Change], Bool, [RecordID]), CloudError>) in
            let meaning = engine.describe(receipt.token)
            do throws(CloudError) {
                if let zone = receipt.zoneID {
                    let results = try engine.fetchRecordZoneChanges(
                        caller: caller, database: database,
                        [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: receipt.token, resultsLimit: limit)])
                    guard let result = results.first else { return (meaning, .success(([], false, []))) }
                    let batch = try result.get()
                    var ids: [RecordID] = []
                    let changes = batch.changes.map { change -> Rewind.Change in
                        switch change {
                        case .changed(let record):
                            ids.append(record.recordID)
                            return .changed(record.recordID.recordName, type: record.recordType, isNew: false)
                        case .deleted(let id, let type):
                            return .deleted(id.recordName, type: type)
                        }
                    }
                    return (meaning, .success((changes, batch.moreComing, ids)))
                }
                let batch = try engine.fetchDatabaseChanges(caller: caller, database: database, since: receipt.token, resultsLimit: limit)
                let changes = batch.changes.map { change -> Rewind.Change in
                    switch change {
                    case .zoneChanged(let zone): .zoneChanged(zone)
                    case .zoneRemoved(let zone, let reason): .zoneRemoved(zone, reason)
                    }
                }
                return (meaning, .success((changes, batch.moreComing, [])))
            } catch {
                return (meaning, .failure(error))
            }
        }
        switch outcome {
        case .success(let (changes, moreComing, _)):
            // "New" if the device does not have the record at all.
            let marked = changes.map { change -> Rewind.Change in
                guard case .changed(let name, let type, _) = change, let zone = receipt.zoneID else { return change }
                let cached = (try? device.engine.record(RecordID(recordName: name, zoneID: zone))) ?? nil
                return .changed(name, type: type, isNew: cached == nil)
            }
            return Rewind(receipt: receipt, meaning: meaning, changes: marked, moreComing: moreComing, error: nil)
        case .failure(let error):
            return Rewind(receipt: receipt, meaning: meaning, changes: [], moreComing: false, error: error)
        }
    }

    private func readNotifications(of device: SimulatedDevice) -> [NotificationEntry] {
        let onTheWay = (world as? Simulation)?.server.pendingNotifications(for: device.deviceID) ?? []
        var entries: [NotificationEntry] = onTheWay.map { pending in
            let status: NotificationEntry.Status = switch pending.state {
            case .coalescing(let until): .coalescing(until: until)
            case .inTransit(let at): .inTransit(arrivesAt: at)
            case .heldWhileOffline: .heldWhileOffline
            }
            return NotificationEntry(notification: pending.notification, status: status, fetch: nil, index: nil)
        }
        let runs = device.engine.fetchRuns
        let all = device.notifications
        let first = max(0, all.count - InspectorSnapshot.tokenLimit)
        for index in stride(from: all.count - 1, through: first, by: -1) {
            let received = all[index]
            var run: FetchRun?
            if let id = received.fetchRunID {
                run = runs.indices.contains(id - 1) && runs[id - 1].id == id ? runs[id - 1] : runs.last { $0.id == id }
            }
            entries.append(NotificationEntry(
                notification: received.notification, status: .delivered(at: received.deliveredAt, latency: received.latency),
                fetch: run, index: index))
        }
        return InspectorFaults.markPushFaults(entries, of: device, in: world)
    }

    // MARK: Events

    private func observe(_ event: SimulationEvent) {
        log?.write("\(Format.clock(event.time)) \(event)")
        guard let name = event.device else { return }
        if case .sync(let sync) = event.kind {
            generations[name, default: 0] += 1
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
    static func notable(_ event: SimulationEvent) -> InspectorMessage? {
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

    // MARK: Keys and commands

    /// Handles a key: updates the state, runs the commands, refreshes.
    /// - Returns: false when the person asked to quit.
    @discardableResult
    public func handle(_ key: KeyEvent) async -> Bool {
        log?.write("key \(key)")
        let wasWaitingToDraw = state.needsRedraw
        state.needsRedraw = false
        let commands = InspectorKeys.handle(key, state: &state)
        for command in commands {
            guard await execute(command) else { return false }
        }
        // A key that changed nothing (an unbound key) draws nothing.
        if state.needsRedraw || !commands.isEmpty { refresh() }
        state.needsRedraw = state.needsRedraw || wasWaitingToDraw
        return true
    }

    /// Runs one command. Returns false for `.quit`.
    @discardableResult
    public func execute(_ command: InspectorCommand) async -> Bool {
        log?.write("command \(command)")
        switch command {
        case .quit:
            return false
        case .addFault, .clearFaults:
            if let problem = executeFault(command) { say(problem, kind: .error) }
        case .redraw:
            repaintRequested = true
        case .copy(let text, let what):
            let outcome = clipboard?(text) ?? .unavailable("no terminal is attached.")
            let message = Clipboard.message(copied: what, outcome: outcome)
            say(message.text, kind: message.kind)
        case .setPaused where !world.isVirtualTime, .setSpeed where !world.isVirtualTime, .step where !world.isVirtualTime:
            say("The clock is live (a device on a real server): pause, speed and step do not apply.")
        case .setPaused(let paused):
            reanchor()
            state.clock.isPaused = paused
            say(paused ? "Clock paused: nothing happens until you press Space (or . to step)." : "Clock running.")
        case .setSpeed(let speed):
            reanchor()
            state.clock.speed = speed
            say("Clock speed \(Format.speed(speed)): one real second is \(Format.seconds(Milliseconds(speed * 1000))) of simulated time.")
        case .step:
            let before = world.eventCount
            if let next = world.nextEventTime, next > world.clock.now() {
                await world.advance(by: next - world.clock.now())
            } else {
                await world.advance(by: world.nextEventTime == nil ? 1_000 : 0)
            }
            reanchor()
            let happened = world.events.suffix(max(0, min(world.eventCount - before, world.events.count)))
            say("Stepped to \(Format.clock(world.clock.now()))" + (happened.last.map { ": \($0)" } ?? ": nothing was due."))
        case .lessonNext:
            guard let lesson else { break }
            guard !lesson.isFinished else {
                say("The lesson is over: b starts it again, t jumps to a step, q quits.")
                break
            }
            let index = lesson.stepsRun
            let summary = lesson.nextStepSummary ?? ""
            let outcome = await lesson.next()
            reanchor()
            for line in lesson.lastStep { log?.write("lesson: \(line)") }
            if let failure = outcome.failure {
                say("Step \(index + 1): \(failure.stepName) did not hold: \(failure.message)", kind: .error)
            } else if let error = outcome.error {
                say("Step \(index + 1) (\(summary)) ended with \(error.code.rawValue) (\(error.serverErrorCode)), as the lesson expects: \(error.reason)", kind: .warning)
            } else if case .say? = outcome.step?.kind {
                say("Step \(index + 1) of \(lesson.stepCount): read the lesson pane, then Enter.")
            } else {
                say("Step \(index + 1) of \(lesson.stepCount) done: \(summary)", kind: .success)
            }
            afterLessonStep()
        case .lessonRestart:
            guard let lesson else { break }
            do {
                try lesson.restart()
                state.lessonMode.showsSummary = false
                afterLessonStep()
                say("Back to the start of the lesson: a fresh world. Enter runs the first step.")
            } catch {
                say("The lesson's world could not be built again: \(error)", kind: .error)
            }
        case .lessonGoTo(let target):
            guard let lesson else { break }
            do {
                try await lesson.goTo(stepsRun: target)
                reanchor()
                afterLessonStep()
                say(LessonMode.positionMessage(stepsRun: lesson.stepsRun, stepCount: lesson.stepCount))
            } catch {
                say("The lesson's world could not be built again: \(error)", kind: .error)
            }
        case .setWriterRunning(let running):
            guard let writer = world.writer else { break }
            writer.isRunning = running
            if running { writer.nextActionTime = world.clock.now() + min(writer.interval, 800) }
            world.note(running ? "writer started" : "writer stopped")
            say(running ? "Writer started: a change every \(Format.seconds(writer.interval))." : "Writer stopped.")
        default:
            await runDeviceCommand(command)
        }
        return true
    }

    private func runDeviceCommand(_ command: InspectorCommand) async {
        let name: String
        switch command {
        case .createZone(_, let device), .deleteZone(_, let device), .purgeZone(_, let device), .encryptedDataReset(let device),
             .saveRecord(_, let device), .deleteRecord(_, let device), .fetch(let device), .fetchOneBatch(_, let device),
             .sync(let device), .setAutoFetch(_, let device), .setOnline(_, let device), .compact(let device), .burst(_, let device):
            name = device
        default:
            return
        }
        guard let device = world.device(named: name) else {
            say("There is no device named \(name).", kind: .error)
            return
        }
        let needsNetwork: Bool = switch command {
        case .fetch, .fetchOneBatch, .sync, .purgeZone, .encryptedDataReset, .compact: true
        default: false
        }
        if needsNetwork && !device.isOnline {
            say("\(name) is offline: that needs the network. Press o to bring it back online.", kind: .warning)
            return
        }
        actionDepth += 1
        notableDuringAction = nil
        recoveredDuringAction = false
        let runsBefore = device.engine.fetchRuns.count
        let tokensBefore = device.tokenHistory.count
        let notificationsBefore = device.notifications.count
        // What the push service holds for the device (an in-process server shows it).
        let simulation = world as? Simulation
        let heldBefore = simulation?.server.pendingNotifications(for: device.deviceID)
            .filter { $0.state == .heldWhileOffline }.map(\.notification)
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
                let onTheWay = simulation?.server.pendingNotifications(for: device.deviceID).compactMap { pending -> Milliseconds? in
                    if case .inTransit(let at) = pending.state { return at }
                    return nil
                }
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
                say(world.writer == nil
                    ? "W (a write burst) needs the demo's writer, and this world has none: save records with n instead."
                    : "The writer does not write on \(name): try W on a device it writes on (\(world.writer?.zones.keys.sorted().joined(separator: ", ") ?? "")).",
                    kind: .warning)
                return
            }
            let eventsBefore = world.eventCount
            await writer.burst(count, on: device, in: world)
            outcome = .done("burst")
            let requests = world.events.suffix(max(0, min(world.eventCount - eventsBefore, world.events.count))).filter { event in
                guard event.device == name, case .sync(.changesSent) = event.kind else { return false }
                return true
            }.count
            success = Self.burstMessage(device: name, saves: count, zone: zone.zoneName, requests: requests, online: device.isOnline)
        default:
            outcome = .done("")
            success = ""
        }
        actionDepth -= 1
        switch outcome {
        case .done:
            if let notable = notableDuringAction, notable.kind == .error {
                // A sync error during the action (and no answer since): it goes when the server answers.
                state.syncFailed(notable, device: name)
            } else {
                if let notable = notableDuringAction {
                    state.message = notable
                } else {
                    say(success + (recoveredDuringAction ? " (A first attempt failed; a retry worked.)" : ""), kind: .success)
                }
                // The line now shows this action's outcome: an earlier sync error is no longer on it.
                state.syncProblem = nil
            }
        case .failed(let error):
            let text = "\(name): \(Self.describe(command)) failed: \(error.code.rawValue) (\(error.serverErrorCode)): \(error.reason)"
            if error.isTransient {
                // A passing failure (the server down, busy): it goes when the server answers again.
                state.syncFailed(InspectorMessage(text, kind: .error), device: name)
            } else {
                say(text, kind: .error)
                state.syncProblem = nil
            }
        }
        log?.write("outcome \(state.message?.text ?? "")")
        notableDuringAction = nil
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
        case .quit: "quit"
        case .addFault: "fault"
        case .clearFaults: "clear faults"
        case .copy: "copy"
        }
    }

    /// Lesson mode after a step ran (or the world was rebuilt): follow the
    /// step's device, highlight what it changed, offer the summary at the end.
    private func afterLessonStep() {
        guard let lesson else { return }
        refresh()
        let devices = state.snapshot.devices.map(\.name)
        if let index = state.lessonMode.stepRan(
            device: lesson.lastStepDevice, touched: lesson.lastTouched, devices: devices, now: realClock.now()) {
            InspectorKeys.focusDevice(index, state: &state)
        }
        if lesson.isFinished && lesson.stepCount > 0 { state.lessonMode.showsSummary = true }
        state.needsRedraw = true
    }

    private func say(_ text: String, kind: InspectorMessage.Kind = .info) {
        InspectorKeys.say(text, kind: kind, state: &state)
    }

    // MARK: Time

    private func reanchor() {
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
    public func run(backend: some TerminalBackend) async throws(TerminalError) {
        state.screenSize = backend.size
        clipboard = { backend.copyToClipboard($0) }
        reanchor()
        refresh()
        await refreshServer()
        var drawnSize: Size?
        // Frames are paced from when their work began (the wake-up), so the
        // simulation's work for a frame overlaps the interval instead of adding to it.
        var lastDraw: Milliseconds = realClock.now() - frameInterval
        var woke = realClock.now()
        var drawNow = true
        var shownSecond = state.clock.now / 1000
        var seenEvents = world.eventCount
        while true {
            let size = backend.size
            if size != state.screenSize {
                state.screenSize = size
                refresh()
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
            if !world.isVirtualTime { timeout = min(timeout ?? liveTick, liveTick) }
            let key = try backend.readKey(timeoutMs: timeout.map { Int(clamping: $0) } ?? -1)
            woke = realClock.now()
            if state.lessonMode.expireHighlight(now: woke) { state.needsRedraw = true }
            if let key {
                if key == .resize {
                    state.screenSize = backend.size
                    refresh()
                }
                guard await handle(key) else { return }
                drawNow = true
            }
            if world.isVirtualTime {
                await catchUp(toReal: realClock.now())
            } else {
                // Real time: process whatever pushes and scheduled fetches are due.
                await world.advance(by: 0)
            }
            if world.eventCount != seenEvents || (key != nil && !world.isVirtualTime) {
                seenEvents = world.eventCount
                await refreshServer()
                refresh()
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
        refresh()
    }
}
