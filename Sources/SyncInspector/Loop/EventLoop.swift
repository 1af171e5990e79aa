import SyncCore

/// What the event loop hands to an app's `update`.
public enum AppEvent<Tick> {
    case key(KeyEvent)
    /// A scheduled tick from the loop's ``TickSource``.
    case tick(Tick)
    /// The terminal now has this size.
    case resized(Size)
}

extension AppEvent: Sendable where Tick: Sendable {}
extension AppEvent: Equatable where Tick: Equatable {}

/// What `update` did.
public enum UpdateResult: Hashable, Sendable {
    /// Nothing visible changed: no redraw.
    case unchanged
    /// The state changed: redraw.
    case changed
    /// Leave the loop.
    case quit
}

/// An interactive terminal program as state → view → screen.
///
/// `update` is the only place the state changes; `view` is a pure function
/// of the state and the screen size.
public protocol TerminalApp {
    associatedtype State
    associatedtype Tick

    func update(_ state: inout State, _ event: AppEvent<Tick>) -> UpdateResult
    func view(_ state: State, size: Size) -> CellBuffer
}

/// When the loop should wake up without a key.
public protocol TickSource {
    associatedtype Tick

    /// Milliseconds until the next tick is due (0 or less: due now), or nil
    /// when none is scheduled and the loop may wait for a key for ever.
    mutating func millisecondsUntilNextTick() -> Int?
    /// The ticks that are due now, in order; they are consumed.
    mutating func takeDueTicks() -> [Tick]
}

/// No ticks: the loop wakes up only for keys.
public struct NoTicks: TickSource {
    public init() {}
    public func millisecondsUntilNextTick() -> Int? { nil }
    public func takeDueTicks() -> [Never] { [] }
}

/// A tick every `intervalMs` on a clock (a ``VirtualClock`` in tests, the
/// ``SystemClock`` in the terminal). A tick that is late by several
/// intervals is delivered once; the schedule restarts from now rather than
/// firing a burst to catch up. The tick carries its scheduled time.
public struct IntervalTicks: TickSource {
    public let clock: any SyncClock
    public var intervalMs: Milliseconds
    /// While paused, no tick is due and the loop waits for keys only.
    public var isPaused: Bool
    public private(set) var nextTick: Milliseconds

    public init(clock: any SyncClock, intervalMs: Milliseconds, isPaused: Bool = false) {
        self.clock = clock
        self.intervalMs = max(1, intervalMs)
        self.isPaused = isPaused
        self.nextTick = clock.now() + max(1, intervalMs)
    }

    public mutating func millisecondsUntilNextTick() -> Int? {
        guard !isPaused else { return nil }
        let remaining = nextTick - clock.now()
        return Int(clamping: max(0, remaining))
    }

    public mutating func takeDueTicks() -> [Milliseconds] {
        guard !isPaused else { return [] }
        let now = clock.now()
        guard now >= nextTick else { return [] }
        let due = nextTick
        nextTick += intervalMs
        if nextTick <= now {
            nextTick = now + intervalMs
        }
        return [due]
    }
}

/// Runs a ``TerminalApp`` on a ``TerminalBackend``.
///
/// Each turn: draw if the state or the size changed, then block in
/// `readKey` for at most the time until the next tick (for ever when none is
/// scheduled), then feed the key and any due ticks to `update`. It never
/// spins: with no key and no tick due it is always blocked in `readKey`.
///
/// When the terminal is smaller than `minimumSize`, the loop shows
/// ``TooSmallScreen`` instead of the app's view (keys still reach the app,
/// so it can still quit).
public struct EventLoop {
    public var minimumSize: Size?
    public var theme: Theme

    public init(minimumSize: Size? = TooSmallScreen.minimumSize, theme: Theme = .monochrome) {
        self.minimumSize = minimumSize
        self.theme = theme
    }

    /// Runs until `update` returns `.quit`; returns the final state.
    /// Errors come from the backend (for example a terminal that went away).
    public func run<App: TerminalApp, Ticks: TickSource>(
        _ app: App, state initial: App.State, backend: some TerminalBackend, ticks: inout Ticks
    ) throws(TerminalError) -> App.State where Ticks.Tick == App.Tick {
        var state = initial
        var needsDraw = true
        var drawnSize: Size?
        while true {
            let size = backend.size
            if needsDraw || drawnSize != size {
                try backend.draw(frame(app, state, size: size))
                drawnSize = size
                needsDraw = false
            }
            let timeout = ticks.millisecondsUntilNextTick().map { max(0, $0) } ?? -1
            if let key = try backend.readKey(timeoutMs: timeout) {
                let event: AppEvent<App.Tick> = key == .resize ? .resized(backend.size) : .key(key)
                if key == .resize { needsDraw = true }
                switch app.update(&state, event) {
                case .quit: return state
                case .changed: needsDraw = true
                case .unchanged: break
                }
            }
            for tick in ticks.takeDueTicks() {
                switch app.update(&state, .tick(tick)) {
                case .quit: return state
                case .changed: needsDraw = true
                case .unchanged: break
                }
            }
        }
    }

    /// Runs an app that needs no ticks.
    public func run<App: TerminalApp>(
        _ app: App, state: App.State, backend: some TerminalBackend
    ) throws(TerminalError) -> App.State where App.Tick == Never {
        var ticks = NoTicks()
        return try run(app, state: state, backend: backend, ticks: &ticks)
    }

    /// The buffer to draw for `state` at `size`: the app's view (fitted to
    /// exactly `size`), or the too-small message.
    public func frame<App: TerminalApp>(_ app: App, _ state: App.State, size: Size) -> CellBuffer {
        if let minimumSize, !size.fits(minimumSize) {
            return TooSmallScreen.render(size: size, minimum: minimumSize, theme: theme)
        }
        let view = app.view(state, size: size)
        if view.size == size { return view }
        var fitted = CellBuffer(size: size, style: theme.normal)
        fitted.draw(view, x: 0, y: 0)
        return fitted
    }
}
