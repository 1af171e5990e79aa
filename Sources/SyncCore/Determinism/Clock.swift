import Synchronization

/// Milliseconds since 1970-01-01T00:00:00Z.
public typealias Milliseconds = Int64

/// A source of "now": the time stamped onto server data (record creation and
/// modification, push notifications, token ages), in milliseconds since 1970.
///
/// One clock family, with one job each:
/// - ``SyncClock`` is what the engine, devices and push layer read. The
///   simulation runs on a ``VirtualClock`` so that the same scenario and seed
///   give the same transcript; the network server and a network device use
///   ``SystemClock``, the wall clock.
/// - Durations (timeouts, deadlines, benchmarks, frame times) are measured with
///   the standard `ContinuousClock`, never by subtracting wall-clock times,
///   which can jump.
public protocol SyncClock: Sendable {
    func now() -> Milliseconds
}

/// The wall clock (`CLOCK_REALTIME`), in milliseconds since 1970: the live ``SyncClock``.
public struct SystemClock: SyncClock {
    public init() {}
    public func now() -> Milliseconds {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Milliseconds(spec.tv_sec) * 1000 + Milliseconds(spec.tv_nsec / 1_000_000)
    }
}

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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
