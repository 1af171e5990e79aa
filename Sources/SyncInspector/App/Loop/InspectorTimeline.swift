import SyncCore
import SyncClient

/// How time runs for the world on screen, chosen once when the inspector
/// starts: a simulated world's virtual clock follows real time at the chosen
/// speed (and stops while paused); a device on a real server lives on the
/// wall clock, and the inspector only looks, every ``LiveTime/tick``, for
/// pushes and fetches that are due. The update step asks it what a tick
/// means and when the next one is due; the loop does not branch on it.
public enum InspectorTimeline: Hashable, Sendable {
    case virtual(VirtualTime)
    case live(LiveTime)

    /// A simulated world's clock, mapped to real time from an anchor.
    public struct VirtualTime: Hashable, Sendable {
        /// Real and virtual time at the last change of speed or pause, or the last jump.
        public var anchorReal: Milliseconds = 0
        public var anchorVirtual: Milliseconds = 0
        /// When the world's next event is due (virtual time; `nil`: nothing is scheduled).
        public var nextEvent: Milliseconds?

        public init() {}
    }

    /// A world on real time.
    public struct LiveTime: Hashable, Sendable {
        /// Real time of the last look for what arrived.
        public var lastAdvance: Milliseconds = 0
        /// How often the loop looks for pushes that arrived (it blocks in between, it does not spin).
        public var tick: Milliseconds = 200

        public init(tick: Milliseconds = 200) {
            self.tick = tick
        }
    }

    /// Whether the world's clock is the wall clock.
    public var isLive: Bool {
        if case .live = self { return true }
        return false
    }

    /// Pause, speed and a step measure from here: the virtual clock stands at `world` at real time `real`.
    mutating func anchor(real: Milliseconds, world: Milliseconds) {
        guard case .virtual(var time) = self else { return }
        time.anchorReal = real
        time.anchorVirtual = world
        self = .virtual(time)
    }

    /// Takes note of where the world's clock stands.
    mutating func note(_ time: WorldTime) {
        guard case .virtual(var virtual) = self else { return }
        virtual.nextEvent = time.nextEvent
        self = .virtual(virtual)
    }

    /// What real time `now` asks of the world, given its clock (`clock`) and
    /// whether an effect on the world is under way (the world then waits for it).
    mutating func tick(now: Milliseconds, clock: ClockStatus, worldBusy: Bool) -> InspectorEffect? {
        guard !worldBusy else { return nil }
        switch self {
        case .virtual(var time):
            guard !clock.isPaused else { return nil }
            let target = time.anchorVirtual + Milliseconds((Double(now - time.anchorReal) * clock.speed).rounded(.down))
            let current = clock.now
            guard target > current else { return nil }
            // The loop may sleep a whole second of the clock on screen between
            // ticks: that lag is caught up in full, so ×1 keeps real time.
            // Only far behind (a stalled machine, a huge burst) does time skip
            // ahead rather than race to catch up, and start again from now.
            let maximum = Milliseconds(max(100, 500 * clock.speed))
            if target - current > Self.catchUpLimit(speed: clock.speed) {
                time.anchorReal = now
                time.anchorVirtual = current + maximum
                self = .virtual(time)
                return .advance(by: maximum)
            }
            return .advance(by: target - current)
        case .live(var time):
            guard now - time.lastAdvance >= time.tick else { return nil }
            time.lastAdvance = now
            self = .live(time)
            return .advanceLive
        }
    }

    /// How far (virtual milliseconds) the world may lag behind real time and
    /// still catch up in one step: more than the loop ever sleeps between
    /// ticks (the next second of the clock on screen), so only a real stall
    /// skips time.
    static func catchUpLimit(speed: Double) -> Milliseconds {
        Milliseconds(max(100, 3_000 * speed))
    }

    /// Real milliseconds from `now` until time asks for something: the
    /// world's next event or the next second of the clock on screen (paced
    /// by frames drawn at `lastDraw`), or the next look at a live world.
    /// `nil`: nothing, or an effect on the world is under way (its end wakes the loop, and time waits for it).
    func due(now: Milliseconds, clock: ClockStatus, lastDraw: Milliseconds, frameInterval: Milliseconds, worldBusy: Bool) -> Milliseconds? {
        guard !worldBusy else { return nil }
        switch self {
        case .virtual(let time):
            guard !clock.isPaused else { return nil }
            let speed = clock.speed
            func realWait(_ virtual: Milliseconds) -> Milliseconds {
                Milliseconds((Double(max(0, virtual)) / speed).rounded(.up))
            }
            var waits: [Milliseconds] = []
            if let next = time.nextEvent {
                // Events are processed in batches at most once a frame.
                waits.append(max(realWait(next - clock.now), lastDraw + frameInterval - now))
            }
            let nextSecond = (clock.now / 1000 + 1) * 1000
            waits.append(max(realWait(nextSecond - clock.now), lastDraw + 250 - now))
            return waits.min()
        case .live(let time):
            return max(0, time.lastAdvance + time.tick - now)
        }
    }
}
