import Foundation
import SyncCore
import SyncClient

/// A notification as a device received it.
public struct ReceivedNotification: Sendable, Hashable {
    public var notification: CloudNotification
    public var deliveredAt: Milliseconds
    /// From the first change it stands for to its delivery (0 when unknown: see ``latencyIsKnown``).
    public var latency: Milliseconds
    /// Whether ``latency`` was measured: the in-process push service knows
    /// when each change happened; a notification from a real server's
    /// long-poll does not say.
    public var latencyIsKnown: Bool
    /// The fetch run it triggered (filled in when the run starts).
    public var fetchRunID: Int?
}
