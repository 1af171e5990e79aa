/// Where a notification waiting for a device is.
public enum PendingState: Sendable, Hashable {
    /// On the server, still merging newer notifications, until this time.
    case coalescing(until: Milliseconds)
    /// Sent; reaches the device at this time.
    case inTransit(arrivesAt: Milliseconds)
    /// Held by the push service while the device is offline; only the latest is kept.
    case heldWhileOffline
}
