import SyncCore
import SyncClient
import SyncWorlds

/// Runs the inspector: messages (keys, time, the world's events, effects'
/// results) → ``InspectorReducer/reduce(_:_:)`` → effects on the world,
/// whose results come back as messages → ``InspectorView`` → the terminal.
///
/// The controller is the runtime around the one update function: it holds
/// the state, the world (``InspectorWorld``), the effect runner and the
/// mailbox; everything else is in ``InspectorState``.
///
/// Not thread-safe: the loop and curses run on the caller's thread; a live
/// world's effects run on a thread of their own (``TaskEffectRunner``).
public final class InspectorController {
    /// The world on screen and the effects on it.
    public let inspected: InspectorWorld
    /// Whatever must live as long as the simulation (the runner that owns its files).
    public let keepAlive: AnyObject?
    public private(set) var state: InspectorState
    public var view: InspectorView
    public var log: InspectorLog? {
        didSet { installLog() }
    }
    /// Real time, for pacing frames and mapping it to the world's clock
    /// (the wall clock; a `VirtualClock` in tests).
    public var realClock: any SyncClock { inspected.realClock }
    /// Frames the world asks for (its clock running, the writer, pushes,
    /// fetches) come at most this often; a key is answered with a frame at
    /// once. See ``defaultFrameInterval``.
    public var frameInterval: Milliseconds = InspectorController.defaultFrameInterval
    /// 100 ms: a busy world is drawn ten times a second, as htop and k9s
    /// refresh, so watching 1,000 changes a second costs a small share of a
    /// core; the world itself moves on, and is read, once a frame.
    public static let defaultFrameInterval: Milliseconds = 100
    /// Whether effects run on a thread of their own while keys are read (a
    /// live world, whose commands and reads go over the network), or are
    /// awaited where they are asked for (an in-process world: its calls never
    /// suspend, and lessons and tests stay deterministic). `nil`: decided by
    /// the world. Read once, when ``run(backend:)`` starts.
    public var runsEffectsConcurrently: Bool?
    /// Messages from the world's observer and from effects, for the update step.
    let mailbox = InspectorMailbox()
    /// Effects awaited where they are asked for (``handle(_:)``, ``refresh()``, and the loop of an in-process world).
    private let inline: InlineEffectRunner

    /// The world on screen (a lesson's restart replaces it).
    public var world: SyncWorld { inspected.world }
    /// The lesson being played, if any.
    public var lesson: (any InspectorLesson)? { inspected.lesson }
    /// What the server holds, as the panes show it: the world's
    /// `SyncWorld.serverObserver` (a test puts a double in its place).
    public var observer: any ServerObserver {
        get { inspected.observer }
        set { inspected.observer = newValue }
    }
    /// How many times the record rows were read from scratch (otherwise changes are applied to them).
    public var recordListBuilds: Int { state.world.recordRows.rebuilds }
    /// How many times changes were applied to the record rows.
    public var recordListUpdates: Int { state.world.recordRows.updates }
    /// Opens a lesson in the presenter layout (`syncscope lesson NAME --present`;
    /// F5 or Ctrl-P toggles it later).
    public func startPresenting() {
        guard state.snapshot.lesson != nil || inspected.lesson != nil else { return }
        state.lessonMode.presenting = true
        state.lessonMode.narrativeFocused = true
        state.needsRedraw = true
    }

    /// Whether nothing runs, nothing waits and no message is on its way.
    public var isIdle: Bool { state.effects.isIdle && mailbox.isEmpty }

    /// - Parameter world: the world to show; a world on real time (a device on
    ///   a real server) shows "live", and the clock keys do not apply to it.
    ///   (ignored when `lesson` is given: its world is shown). The server is
    ///   read once before the initializer returns.
    public init(
        world: SyncWorld, lesson: (any InspectorLesson)? = nil, keepAlive: AnyObject? = nil, paused: Bool = false, speed: Double = 1,
        screenSize: Size = Size(width: 80, height: 24), theme: Theme = .monochrome, realClock: any SyncClock = SystemClock(),
        log: InspectorLog? = nil
    ) async {
        let mailbox = self.mailbox
        inspected = InspectorWorld(world: world, lesson: lesson, realClock: realClock, post: { mailbox.post($0) })
        inline = InlineEffectRunner(world: inspected, mailbox: mailbox)
        self.keepAlive = keepAlive
        self.log = log
        self.view = InspectorView(theme: theme)
        let shown = inspected.world
        state = InspectorState(clock: ClockStatus(now: shown.clock.now(), isPaused: paused, speed: max(0.01, speed)), screenSize: screenSize)
        state.realNow = realClock.now()
        if let lesson {
            state.message = InspectorMessage("Lesson: \(lesson.title). Enter runs the next step; p steps back, t lists the steps, b starts again.")
        } else if shown.serverObserver.readsEventFeed {
            state.watch.isOn = true
            state.watch.container = shown.container
            state.watch.environment = shown.serverObserver.watchedEnvironment.rawValue
            state.message = InspectorMessage(
                "Watching \(shown.serverObserver.source): every client, live. Tab: next pane · Enter: open · d: diagnoses · ?: every key.")
        } else if !shown.isVirtualTime {
            state.message = InspectorMessage(
                "\(shown.devices.map(\.name).joined(separator: ", ")) on \(shown.serverObserver.source), live. ? shows every key.")
        } else {
            state.message = InspectorMessage(
                "alice's iPhone and Mac and bob's iPad sync through a simulated server. ? shows every key.")
        }
        // How time runs is chosen here, once. A watched server has no time of
        // the inspector's to move: the feed's long-poll wakes the loop.
        if state.watch.isOn {
            state.clock.isPaused = true
            state.clock.isLive = true
            state.timeline = .virtual(.init())
        } else if shown.isVirtualTime {
            state.timeline = .virtual(.init())
        } else {
            state.clock.isLive = true
            state.timeline = .live(.init())
        }
        state.timeline.anchor(real: state.realNow, world: state.clock.now)
        logEarlierEvents()
        installLog()
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

    private func installLog() {
        inspected.log = log.map { log in { log.write($0) } }
    }

    // MARK: Messages

    /// What one turn of the update step asked of the loop.
    struct Turn {
        /// The person asked to quit.
        var quit = false
        /// Ctrl-L: every cell is drawn again at the next frame.
        var repaint = false
        /// An effect answered: its answer is drawn at once, as a key is.
        var answered = false
    }

    /// Sends `message` to the update step, then every message it leads to,
    /// carrying out the effects with `runner` (and those on the terminal
    /// with `terminal`), until the mailbox is empty.
    @discardableResult
    func send(_ message: InspectorMsg? = nil, runner: any EffectRunner, terminal: (any TerminalBackend)? = nil) async -> Turn {
        var turn = Turn()
        // Batch by batch as the mailbox gives them (what the update posts
        // comes in the next batch, after the rest of this one): a batch is
        // read where it lies, not copied onto the end of a queue.
        var batch = mailbox.takeAll()
        if let message { batch.append(message) }
        while !batch.isEmpty {
            for next in batch {
                logBefore(next)
                let asked = InspectorReducer.reduce(&state, next)
                switch next {
                case .commandFinished, .serverRead, .worldRead, .feedRead, .watchRead, .clientRenamed: turn.answered = true
                default: break
                }
                logAfter(next)
                for effect in asked {
                    switch effect {
                    case .quit:
                        await runner.stop()
                        turn.quit = true
                        return turn
                    case .repaint:
                        turn.repaint = true
                    case .copy(let text, let what):
                        let outcome = terminal?.copyToClipboard(text) ?? .unavailable("no terminal is attached.")
                        let time = WorldTime(now: state.clock.now, real: realClock.now())
                        mailbox.post(.commandFinished(.copy(text, what: what), .copied(what: what, outcome), at: time))
                    default:
                        await runner.start(effect, context: EffectContext(state))
                    }
                }
            }
            batch = mailbox.takeAll()
        }
        return turn
    }

    private func logBefore(_ message: InspectorMsg) {
        guard let log else { return }
        switch message {
        case .key(let key): log.write("key \(key)")
        case .worldEvent(let event): log.write("\(Format.clock(event.time)) \(event)")
        case .effectStarted(let effect): log.write("effect \(effect) started")
        default: break
        }
    }

    private func logAfter(_ message: InspectorMsg) {
        guard let log, case .commandFinished(_, let outcome, _) = message, outcome != .nothing else { return }
        log.write("outcome \(state.message?.text ?? "")")
    }

    /// Handles a key and runs the effects it asked for to completion (the
    /// outcome is on screen when it returns).
    /// - Returns: false when the person asked to quit.
    @discardableResult
    public func handle(_ key: KeyEvent) async -> Bool {
        await !send(.key(key), runner: inline).quit
    }

    /// Runs one command as a key would ask for it, to completion.
    /// Returns false for `.quit`.
    @discardableResult
    public func execute(_ command: InspectorCommand) async -> Bool {
        await !send(.command(command), runner: inline).quit
    }

    /// Reads the server (through ``observer``, in process as over HTTP) and
    /// the world, and waits for the answer (the first frame, tests).
    public func refresh() async {
        await send(.refresh, runner: inline)
    }

    /// Lays the state out for another terminal size.
    public func resize(to size: Size) {
        _ = InspectorReducer.reduce(&state, .resized(size))
    }

    /// The frame for the current state (for tests and the benchmark).
    public func frame(size: Size? = nil) -> CellBuffer {
        view.render(state, size: size ?? state.screenSize)
    }

    // MARK: Time

    /// Real milliseconds until something is due: a frame that was held back,
    /// a lesson's highlight to drop, or what the time line waits for (the
    /// world's next event, the next second on the clock, a look at a live
    /// world). `nil`: nothing, wait for a key (or an effect's end) for ever.
    public func millisecondsUntilDue(realNow now: Milliseconds, lastDraw: Milliseconds) -> Milliseconds? {
        var waits: [Milliseconds] = []
        if state.needsRedraw { waits.append(max(0, lastDraw + frameInterval - now)) }
        if let until = state.lessonMode.highlightUntil { waits.append(max(0, until - now)) }
        if let due = state.timeline.due(
            now: now, clock: state.clock, lastDraw: lastDraw, frameInterval: frameInterval, worldBusy: !state.effects.isIdle) {
            waits.append(due)
        }
        return waits.min().map { max(0, $0) }
    }

    // MARK: The loop

    /// Runs until the person quits. Draws only when something changed, at
    /// most once a frame for the world's changes; blocks on the terminal and
    /// the mailbox's pipe the rest of the time (for ever while nothing is due).
    public func run(backend: some TerminalBackend) async throws(TerminalError) {
        // Where effects run is chosen here, once.
        let runner: any EffectRunner = runsEffectsConcurrently ?? (state.timeline.isLive || state.watch.isOn)
            ? TaskEffectRunner(world: inspected, mailbox: mailbox, executor: TerminalExecutor(threadName: "syncscope-world"))
            : inline
        var drawnSize: Size?
        // Frames are paced from when their work began (the wake-up), so the
        // world's work for a frame overlaps the interval instead of adding to it.
        var lastDraw: Milliseconds = realClock.now() - frameInterval
        var woke = realClock.now()
        var drawNow = true
        var repaint = false
        /// Sends a message; false when the person quit.
        func send(_ message: InspectorMsg) async -> Bool {
            let turn = await self.send(message, runner: runner, terminal: backend)
            repaint = repaint || turn.repaint
            if turn.answered { drawNow = true }
            return !turn.quit
        }
        guard await send(.started(size: backend.size, now: realClock.now(), offKeyPath: runner !== inline)) else { return }
        while true {
            let size = backend.size
            if size != state.screenSize {
                guard await send(.resized(size)) else { return }
                drawNow = true
            }
            if repaint {
                backend.invalidate()
                repaint = false
                drawNow = true
            }
            if drawnSize != size || (state.needsRedraw && (drawNow || woke - lastDraw >= frameInterval)) {
                try backend.draw(view.render(state, size: size))
                drawnSize = size
                lastDraw = woke
                drawNow = false
                _ = InspectorReducer.reduce(&state, .frameDrawn)
            }
            let timeout = millisecondsUntilDue(realNow: realClock.now(), lastDraw: lastDraw)
            let key = try backend.readKey(timeoutMs: timeout.map { Int(clamping: $0) } ?? -1, wakingOn: mailbox.wake)
            woke = realClock.now()
            guard await send(.tick(now: woke)) else { return }
            if let key {
                if key == .resize, backend.size != state.screenSize {
                    guard await send(.resized(backend.size)) else { return }
                }
                guard await send(.key(key)) else { return }
                drawNow = true
            }
        }
    }
}
