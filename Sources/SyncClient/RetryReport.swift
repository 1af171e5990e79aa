import Foundation
import SyncCore

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
