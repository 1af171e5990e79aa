/// A notification on its way to a device, for the inspector.
public struct PendingNotification: Sendable, Hashable {
    public var deviceID: String
    public var notification: CloudNotification
    public var state: PendingState
    public var firstChangeAt: Milliseconds
    public var lastChangeAt: Milliseconds

    public init(deviceID: String, notification: CloudNotification, state: PendingState, firstChangeAt: Milliseconds, lastChangeAt: Milliseconds) {
        self.deviceID = deviceID
        self.notification = notification
        self.state = state
        self.firstChangeAt = firstChangeAt
        self.lastChangeAt = lastChangeAt
    }
}
