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

/// One retry the engine decided on: what failed, how, and how long it waits.
public struct RetryReport: Sendable, Hashable {
    /// `records/modify`, `zones/modify`, `changes/database` or `changes/zone`.
    public var operation: String
    public var scope: DatabaseScope?
    public var zoneID: RecordZoneID?
    /// 1 for the first retry.
    public var attempt: Int
    public var code: CloudError.Code
    /// How long the engine waits before the retry, in milliseconds.
    public var delay: Milliseconds
    /// Whether the wait is the server's `retryAfter` (else a back-off, or none).
    public var fromRetryAfter: Bool

    public init(
        operation: String, scope: DatabaseScope?, zoneID: RecordZoneID?, attempt: Int, code: CloudError.Code, delay: Milliseconds,
        fromRetryAfter: Bool
    ) {
        self.operation = operation
        self.scope = scope
        self.zoneID = zoneID
        self.attempt = attempt
        self.code = code
        self.delay = delay
        self.fromRetryAfter = fromRetryAfter
    }

    /// "THROTTLED, retry in 3 s (retryAfter), attempt 1".
    public var summary: String {
        let wait = delay == 0 ? "retry at once" : "retry in \(Self.duration(delay))"
        let why = fromRetryAfter ? " (retryAfter)" : delay == 0 ? "" : " (back-off)"
        return "\(code.serverErrorCode), \(wait)\(why), attempt \(attempt)"
    }

    static func duration(_ ms: Milliseconds) -> String {
        ms % 1000 == 0 ? "\(ms / 1000) s" : String(format: "%.1f s", Double(ms) / 1000)
    }
}

extension DeviceSyncEngine {
    /// How long to wait before retry number `attempt` of a request that failed with `error`.
    func retryDelay(for error: CloudError, attempt: Int) -> (Milliseconds, fromRetryAfter: Bool) {
        let policy = configuration.retry
        if policy.honorsRetryAfter, let seconds = error.retryAfter, seconds > 0 {
            return (Milliseconds((seconds * 1000).rounded(.up)), true)
        }
        guard policy.backsOff, policy.baseDelay > 0 else { return (0, false) }
        let exponent = min(max(0, attempt - 1), 20)
        let ceiling = min(policy.maxDelay, policy.baseDelay << Milliseconds(exponent))
        // "Equal jitter": half fixed, half random, so waits spread without collapsing to zero.
        let half = ceiling / 2
        let jitter = half > 0 ? Milliseconds(retryRandom.next() % UInt64(half + 1)) : 0
        return (half + jitter, false)
    }

    /// Reports a retry (its error and its wait) and waits.
    func waitBeforeRetry(_ error: CloudError, operation: String, scope: DatabaseScope?, zoneID: RecordZoneID?, attempt: Int) async {
        let (delay, fromRetryAfter) = retryDelay(for: error, attempt: attempt)
        emit(.error(SyncErrorReport(operation: operation, scope: scope, zoneID: zoneID, error: error)))
        emit(.retryScheduled(RetryReport(
            operation: operation, scope: scope, zoneID: zoneID, attempt: attempt, code: error.code, delay: delay,
            fromRetryAfter: fromRetryAfter)))
        await sleep(delay)
    }

    /// Runs a request, retrying it (after the wait the policy says) while it
    /// fails with a transient error, at most `maxRetries` times.
    func withRetries<T>(
        _ operation: String, scope: DatabaseScope?, zoneID: RecordZoneID? = nil, _ body: () async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as CloudError where error.isTransient && attempt < configuration.retry.maxRetries {
                attempt += 1
                await waitBeforeRetry(error, operation: operation, scope: scope, zoneID: zoneID, attempt: attempt)
            }
        }
    }

    /// Lets `milliseconds` pass: the engine's ``waitHandler`` if set, else a
    /// virtual clock moves, the wall clock sleeps.
    func sleep(_ milliseconds: Milliseconds) async {
        guard milliseconds > 0 else { return }
        if let waitHandler {
            await waitHandler(milliseconds)
        } else if let virtual = clock as? VirtualClock {
            virtual.advance(by: milliseconds)
        } else {
            try? await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
        }
    }

    /// A stable seed for a device's retry jitter (not `hashValue`, which changes per process).
    static func jitterSeed(_ base: UInt64, deviceID: String?) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in (deviceID ?? "").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return base ^ hash
    }
}
