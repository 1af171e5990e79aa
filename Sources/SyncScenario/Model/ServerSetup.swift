import SyncCore
import SyncClient

/// How the simulated server behaves.
public struct ServerSetup: Sendable, Equatable {
    /// The container every device uses when the file names none.
    public static let defaultContainer = "iCloud.com.example.SyncScope"
    /// Same as the push system's default: notifications for one device that
    /// arrive within this window merge into one.
    public static let defaultCoalescingWindowMs: Milliseconds = 200
    /// Same as the push system's default: time from a change to its push.
    public static let defaultPushLatencyMs: Milliseconds = 50

    /// Changes of history kept per zone and database log; tokens from before
    /// expire. `nil`: keep everything until a `compact` step.
    public var retention: Int?
    public var coalescingWindowMs: Milliseconds
    public var pushLatencyMs: Milliseconds
    /// The container identifier; `nil`: ``defaultContainer``.
    public var container: String?

    public init(
        retention: Int? = nil,
        coalescingWindowMs: Milliseconds = ServerSetup.defaultCoalescingWindowMs,
        pushLatencyMs: Milliseconds = ServerSetup.defaultPushLatencyMs,
        container: String? = nil
    ) {
        self.retention = retention
        self.coalescingWindowMs = coalescingWindowMs
        self.pushLatencyMs = pushLatencyMs
        self.container = container
    }
}
