import SyncCore
import SyncClient

/// A notification of the focused device: delivered, or still on its way.
public struct NotificationEntry: Hashable, Sendable {
    public enum Status: Hashable, Sendable {
        case delivered(at: Milliseconds, latency: Milliseconds)
        case coalescing(until: Milliseconds)
        case inTransit(arrivesAt: Milliseconds)
        case heldWhileOffline
        /// An injected push fault lost it: it never arrives.
        case dropped(at: Milliseconds)
    }

    public var notification: CloudNotification
    public var status: Status
    /// The fetch run it triggered, as the device recorded it.
    public var fetch: FetchRun?
    /// Index in the device's whole notification list (`nil` while on its way).
    public var index: Int?
    /// The injected push fault that hit it: "dropped", "duplicate", "delayed 500 ms", "reordered".
    public var fault: String? = nil
}
