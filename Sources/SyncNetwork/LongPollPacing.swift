import Foundation
import SyncCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a device's next long-poll of its webcourier URL goes out, and how
/// long it may wait: the rules of ``WebcourierListener``, a value on its own
/// so they can be tested without a server or a clock.
///
/// - A poll that brought a notification is followed by the next at once
///   (another may be waiting: the courier answers one per poll).
/// - A poll that failed (the server is away, refused, or answered an error)
///   is followed by a pause that doubles from ``minimumPause`` up to
///   ``maximumPause``; the server's `retryAfter` is waited when it is longer.
/// - A long-poll that came back empty well before its time was up (a proxy
///   or server that does not hold polls) counts like a failure for pacing,
///   so a device never polls in a tight loop.
/// - The first poll, and the first after a failure, asks for no wait
///   (`timeout=0`): it takes what is waiting and opens the connection with a
///   quick exchange. Only then do polls wait. (FoundationNetworking on
///   Linux busy-polls while the first request on a new connection waits for
///   its answer; a long-poll sent on a fresh connection after a server restart
///   burned a core for its whole timeout.)
public struct LongPollPacing: Sendable, Hashable {
    public var minimumPause: Milliseconds
    public var maximumPause: Milliseconds
    /// The pause after the next failure.
    public private(set) var nextPause: Milliseconds
    /// Whether the next poll only opens the connection (asks for no wait).
    public private(set) var warmingUp = true

    public init(minimumPause: Milliseconds = 250, maximumPause: Milliseconds = 5_000) {
        self.minimumPause = max(1, minimumPause)
        self.maximumPause = max(self.minimumPause, maximumPause)
        nextPause = self.minimumPause
    }

    /// The `timeout` (seconds) of the next poll, for a device whose long-polls wait `longPoll` seconds.
    public func timeout(longPoll: Double) -> Double { warmingUp ? 0 : longPoll }

    /// A poll that asked to wait `asked` seconds answered after `elapsed`
    /// milliseconds, with a notification or not; returns the pause before the next.
    public mutating func answered(withNotification: Bool, asked: Double, elapsed: Milliseconds) -> Milliseconds {
        let wasWarmingUp = warmingUp
        warmingUp = false
        if withNotification || wasWarmingUp || asked <= 0 || Double(elapsed) >= asked * 500 {
            nextPause = minimumPause
            return 0
        }
        return backOff()
    }

    /// A poll failed; returns the pause before the next (at least `retryAfter` seconds when the server gave one).
    public mutating func failed(retryAfter: Double? = nil) -> Milliseconds {
        warmingUp = true
        let pause = backOff()
        guard let retryAfter, retryAfter.isFinite, retryAfter > 0 else { return pause }
        return max(pause, Milliseconds((min(retryAfter, 3_600) * 1000).rounded(.up)))
    }

    private mutating func backOff() -> Milliseconds {
        let pause = nextPause
        nextPause = min(maximumPause, nextPause * 2)
        return pause
    }
}
