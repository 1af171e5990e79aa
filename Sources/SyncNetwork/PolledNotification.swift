import Foundation
import Synchronization
import SyncCore
import SyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One notification as a webcourier long-poll handed it over.
public struct PolledNotification: Sendable, Hashable {
    public var notification: CloudNotification
    /// When the server queued it (the commit time of the oldest change it
    /// stands for), in milliseconds since 1970 on the server's clock; `nil`
    /// when the server does not say (Apple's does not).
    public var queuedAt: Milliseconds?

    public init(notification: CloudNotification, queuedAt: Milliseconds?) {
        self.notification = notification
        self.queuedAt = queuedAt
    }

    /// From when the server queued it to `receivedAt` (same clock: the wall
    /// clock of one machine), never below 0; `nil` when the server did not say.
    public func latency(receivedAt: Milliseconds) -> Milliseconds? {
        queuedAt.map { max(0, receivedAt - $0) }
    }
}
