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

/// What a ``WebcourierListener`` hears.
public enum WebcourierEvent: Sendable, Hashable {
    /// One notification, and when it arrived (the listener's clock).
    case notification(PolledNotification, receivedAt: Milliseconds)
    /// Polling fails (reported once per outage; the listener keeps retrying).
    case failed(CloudError)
    /// Polling works again after failing.
    case recovered
}

/// A device's long-poll loop: polls its webcourier URL one notification per
/// answer, paced by ``LongPollPacing``, until told to stop. The poll, the
/// sleep and the clock are given, so the loop runs the same against a
/// server (``HTTPCloudService/pollWebcourier(timeout:)``, the wall clock)
/// and in tests (a virtual clock whose sleep moves it).
public struct WebcourierListener: Sendable {
    /// Seconds each long-poll waits.
    public var longPoll: Double
    public var pacing: LongPollPacing

    public init(longPoll: Double, pacing: LongPollPacing = LongPollPacing()) {
        self.longPoll = longPoll
        self.pacing = pacing
    }

    /// Polls while `shouldContinue()` says so; `handle` hears each
    /// notification, the first failure of an outage and the recovery. A
    /// failure of `unknownItem` (the server no longer knows the device) calls
    /// `reregister` before the pause.
    public func run(
        poll: @Sendable (Double) async throws -> PolledNotification?,
        reregister: @Sendable () async -> Void = {},
        now: @Sendable () -> Milliseconds,
        sleep: @Sendable (Milliseconds) async -> Void,
        shouldContinue: @Sendable () -> Bool,
        handle: @Sendable (WebcourierEvent) -> Void
    ) async {
        var pacing = self.pacing
        var failing = false
        while shouldContinue() {
            let timeout = pacing.timeout(longPoll: longPoll)
            let started = now()
            let pause: Milliseconds
            do {
                let polled = try await poll(timeout)
                let finished = now()
                guard shouldContinue() else { break }
                if failing {
                    failing = false
                    handle(.recovered)
                }
                if let polled { handle(.notification(polled, receivedAt: finished)) }
                pause = pacing.answered(withNotification: polled != nil, asked: timeout, elapsed: finished - started)
            } catch {
                guard shouldContinue() else { break }
                let cloud = error as? CloudError ?? CloudError(.networkFailure, String(describing: error))
                if !failing {
                    failing = true
                    handle(.failed(cloud))
                }
                if cloud.code == .unknownItem { await reregister() }
                pause = pacing.failed(retryAfter: cloud.retryAfter)
            }
            if pause > 0 { await sleep(pause) }
        }
    }
}

extension HTTPCloudService {
    /// A session for one device's long-polls: one connection to the server,
    /// so each poll goes out on the connection the previous one opened.
    public static func makeLongPollSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.timeoutIntervalForRequest = 330
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }
}
