/// A notification that reached a device.
public struct Delivery: Sendable, Hashable, CustomStringConvertible {
    public var deviceID: String
    public var user: String
    /// The newest of the notifications it stands for (`coalescedCount` of them).
    public var notification: CloudNotification
    /// When the oldest change it stands for was committed.
    public var firstChangeAt: Milliseconds
    /// When the newest change it stands for was committed.
    public var lastChangeAt: Milliseconds
    public var deliveredAt: Milliseconds

    public init(
        deviceID: String, user: String, notification: CloudNotification, firstChangeAt: Milliseconds, lastChangeAt: Milliseconds,
        deliveredAt: Milliseconds
    ) {
        self.deviceID = deviceID
        self.user = user
        self.notification = notification
        self.firstChangeAt = firstChangeAt
        self.lastChangeAt = lastChangeAt
        self.deliveredAt = deliveredAt
    }

    /// How long the oldest change it stands for waited to be announced.
    public var latency: Milliseconds { deliveredAt - firstChangeAt }

    public var description: String {
        "delivered to \(user)/\(deviceID) after \(latency) ms: \(notification)"
    }
}
