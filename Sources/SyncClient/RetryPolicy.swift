import Foundation
import SyncCore

/// How a ``DeviceSyncEngine`` retries requests that failed for a reason
/// that may pass: `requestRateLimited`, `zoneBusy`, `serviceUnavailable`,
/// `networkFailure` (the answer may have been lost after the server applied
/// the change) and `internalError`.
///
/// It waits the server's `retryAfter` when the error has one (as Apple asks:
/// `CKErrorRetryAfterKey`); otherwise it backs off exponentially —
/// `baseDelay × 2^(attempt−1)`, at most `maxDelay` — with jitter drawn from
/// the engine's seeded random source, so a simulation replays exactly.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries of one request before giving up (the change stays queued).
    public var maxRetries: Int
    /// The first back-off, in milliseconds.
    public var baseDelay: Milliseconds
    /// The longest back-off, in milliseconds.
    public var maxDelay: Milliseconds
    /// Whether to wait the server's `retryAfter` (a naive client does not).
    public var honorsRetryAfter: Bool
    /// Whether to back off at all: a naive client retries at once.
    public var backsOff: Bool

    public init(maxRetries: Int = 4, baseDelay: Milliseconds = 1_000, maxDelay: Milliseconds = 60_000, honorsRetryAfter: Bool = true, backsOff: Bool = true) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.honorsRetryAfter = honorsRetryAfter
        self.backsOff = backsOff
    }

    /// Waits what the server says, backs off otherwise.
    public static let standard = RetryPolicy()
    /// Retries at once, ignoring `retryAfter`: what not to do (the rate-limiting lesson shows why).
    public static let naive = RetryPolicy(maxRetries: 4, honorsRetryAfter: false, backsOff: false)
    /// Never retries: every transient failure is reported at once (the change stays queued).
    public static let never = RetryPolicy(maxRetries: 0)
}
