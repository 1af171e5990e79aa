import Synchronization

/// A clock that moves only when told to.
public final class VirtualClock: SyncClock {
    /// 2026-01-01T00:00:00Z: every simulation starts here unless told otherwise.
    public static let defaultStart: Milliseconds = 1_767_225_600_000

    private let current: Mutex<Milliseconds>

    public init(start: Milliseconds = VirtualClock.defaultStart) {
        current = Mutex(start)
    }

    public func now() -> Milliseconds { current.withLock { $0 } }

    /// Moves the clock forward by `milliseconds` (never backwards).
    public func advance(by milliseconds: Milliseconds) {
        precondition(milliseconds >= 0, "a virtual clock never runs backwards")
        current.withLock { $0 += milliseconds }
    }

    /// Moves the clock to `time` if that is later than now.
    public func advance(to time: Milliseconds) {
        current.withLock { $0 = max($0, time) }
    }
}
