import Foundation

/// A push fault that hit one notification for one device: what the
/// inspector's push feed marks ("dropped", "duplicate", "delayed 500 ms",
/// "reordered").
public struct PushFaultMark: Sendable, Hashable {
    public var time: Milliseconds
    public var deviceID: String
    /// The notification as it was when the fault hit it (a dropped one never arrives).
    public var notification: CloudNotification
    public var kind: FaultKind
    /// The fault in a word or two: ``FaultEffect/summary``.
    public var detail: String

    public init(time: Milliseconds, deviceID: String, notification: CloudNotification, kind: FaultKind, detail: String) {
        self.time = time
        self.deviceID = deviceID
        self.notification = notification
        self.kind = kind
        self.detail = detail
    }
}
