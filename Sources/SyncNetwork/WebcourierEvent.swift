import Foundation
import SyncCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``WebcourierListener`` hears.
public enum WebcourierEvent: Sendable, Hashable {
    /// One notification, and when it arrived (the listener's clock).
    case notification(PolledNotification, receivedAt: Milliseconds)
    /// Polling fails (reported once per outage; the listener keeps retrying).
    case failed(CloudError)
    /// Polling works again after failing.
    case recovered
}
