import SyncCore
import SyncClient
import SyncWorlds

/// The world on screen as the inspector's effects reach it: an in-process
/// `Simulation` (SyncSimulation) or one device on a real server
/// (`RemoteWorld`, in SyncRemoteWorld), through one interface (`SyncWorld`
/// and its `ServerObserver`). It carries out each ``InspectorEffect`` and
/// answers with ``InspectorMsg``s; it never touches the state.
///
/// Not thread-safe: it is used on one thread at a time (the loop's, or the
/// world's own thread for a live world: see ``TaskEffectRunner``).
public final class InspectorWorld {
    /// The world (a lesson's restart replaces it).
    public private(set) var world: SyncWorld
    /// The lesson being played, if any.
    public let lesson: (any InspectorLesson)?
    /// What the server holds, as the panes show it: the world's
    /// `SyncWorld.serverObserver` (a test puts a double in its place).
    public var observer: any ServerObserver
    /// Real time, for the world's clock readings and a lesson step's highlight.
    public let realClock: any SyncClock
    /// Where the world's events go, as they happen (the controller's mailbox).
    private let post: @Sendable (InspectorMsg) -> Void
    /// Writes what an effect did to the `--log` file (from the thread the effect runs on: each write is one whole line).
    var log: ((String) -> Void)?

    init(world: SyncWorld, lesson: (any InspectorLesson)?, realClock: any SyncClock, post: @escaping @Sendable (InspectorMsg) -> Void) {
        self.world = lesson?.world ?? world
        self.observer = (lesson?.world ?? world).serverObserver
        self.lesson = lesson
        self.realClock = realClock
        self.post = post
        if let lesson {
            lesson.onRestart = { [unowned self] world in self.replace(with: world) }
        }
        installObserver()
    }

    /// A lesson's runner watches its simulation itself and passes events on.
    private func installObserver() {
        let post = self.post
        if let lesson {
            lesson.eventObserver = { event in post(.worldEvent(event)) }
        } else {
            world.eventObserver = { event in post(.worldEvent(event)) }
        }
    }

    /// Shows another world (a restarted lesson): selections start over.
    private func replace(with world: SyncWorld) {
        self.world = world
        observer = world.serverObserver
        installObserver()
        post(.worldReplaced(snapshot(of: nil)))
    }

    /// Where the world's clock stands now.
    var time: WorldTime {
        WorldTime(now: world.clock.now(), nextEvent: world.nextEventTime, real: realClock.now())
    }

    // MARK: Effects

    /// Carries out `effect` and answers with what it found (the world's
    /// events reach the mailbox as they happen, before this answer).
    func perform(_ effect: InspectorEffect, context: EffectContext) async -> [InspectorMsg] {
        switch effect {
        case .command(let command):
            log?("command \(command)")
            let outcome = await run(command)
            return [.commandFinished(command, outcome, at: time)]
        case .readServer(let request):
            return [.serverRead(await read(request, context: context))]
        case .readWorld:
            return [.worldRead(snapshot(of: context))]
        case .advance(let by):
            await world.advance(by: by)
            return [.advanced(time)]
        case .advanceLive:
            await world.advance(by: 0)
            return [.advanced(time)]
        case .readFeed(let after, let timeout, let delay):
            return [await readFeed(after: after, timeout: timeout, delay: delay)]
        case .readWatch(let request):
            return [await readWatch(request)]
        case .renameClient(let key, let name):
            return [await renameClient(key, to: name)]
        case .repaint, .copy, .quit:
            // The controller's own (the terminal, the loop).
            return []
        }
    }

    // MARK: Reading

    /// Reads the server for the focused device and the selection of
    /// `request` (through ``observer``, in process as over HTTP), then the world.
    func read(_ request: ServerReadRequest, context: EffectContext) async -> ServerReadResult {
        let observer = self.observer
        var request = request
        guard world.devices.indices.contains(request.deviceIndex) else {
            request.device = nil
            return ServerReadResult(request: request, source: observer.source, reading: .success(context.reading), world: snapshot(of: nil))
        }
        let device = world.devices[request.deviceIndex]
        request.device = device.name
        let result: Result<ServerReading, CloudError>
        do throws(CloudError) {
            result = .success(try await ServerReading.read(
                observer, device: device, zone: request.target.zone, rewind: request.target.receipt, recordRows: context.recordRows))
        } catch {
            result = .failure(error)
        }
        var context = context
        if case .success(let next) = result { context.reading = next }
        return ServerReadResult(request: request, source: observer.source, reading: result, world: snapshot(of: context))
    }

    /// The world as the panes show it; with `context`, the focused device's
    /// side too, built with `context.reading` (no I/O: the device's own state).
    func snapshot(of context: EffectContext?) -> WorldSnapshot {
        var snapshot = WorldSnapshot(
            devices: world.devices.map { device in
                DeviceSummary(
                    name: device.name, user: device.user, deviceID: device.deviceID, isOnline: device.isOnline,
                    autoFetchOnPush: device.engine.autoFetchOnPush, pendingChanges: device.pendingChangeCount,
                    fetchRuns: device.engine.fetchRuns.count, lastError: device.lastError)
            },
            events: EventLog.kept(world.recentEvents(world.eventLimit), device: context?.eventDevice, category: context?.eventCategory),
            eventCount: world.eventCount,
            writer: world.writer.map { WriterStatus(isRunning: $0.isRunning, interval: $0.interval, actions: $0.actions) },
            time: time,
            lesson: lesson.map { lesson in
                LessonStatus(
                    title: lesson.title, stepsRun: lesson.stepsRun, stepCount: lesson.stepCount,
                    narrative: lesson.narrative, lastStep: lesson.lastStep, nextStep: lesson.nextStepSummary,
                    failure: lesson.failureMessage, outline: lesson.outline, checks: lesson.checks,
                    code: lesson.code, question: lesson.question, note: lesson.note)
            })
        guard let context else { return snapshot }
        let index = snapshot.devices.indices.contains(context.focusedDevice) ? context.focusedDevice : 0
        guard world.devices.indices.contains(index) else { return snapshot }
        let device = world.devices[index]
        let reading = context.reading
        var focused = FocusedDeviceSnapshot(device: device.name)
        focused.zones = SnapshotBuilder.zones(of: device, reading: reading)
        let history = lesson?.tokenReceipts(for: device) ?? device.tokenHistory
        focused.tokens = Array(history.suffix(InspectorSnapshot.tokenLimit))
        focused.tokenTotal = history.count
        focused.notifications = SnapshotBuilder.notifications(of: device, reading: reading)
        focused.notificationTotal = device.notifications.count
        focused.rewind = reading.rewind.map { SnapshotBuilder.rewind($0, device: device) }
        // The device's copy of the zone the panes will show, as much as the records model needs.
        if let zone = InspectorReducer.zoneToShow(in: focused.zones, selected: context.selectedZone, chosen: context.zoneChosen) {
            focused.records = SnapshotBuilder.deviceRecords(of: zone, device: device, reading: reading, model: context.recordRows)
        }
        snapshot.focused = focused
        return snapshot
    }
}
