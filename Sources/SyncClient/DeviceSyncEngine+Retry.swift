import Foundation
import SyncCore

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
