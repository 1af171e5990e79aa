/// What a subscription's notifications look like, mirroring
/// `CKSubscription.NotificationInfo` (the parts the simulator models).
public struct NotificationInfo: Sendable, Hashable {
    /// Text of a visible alert; `nil` for a silent notification.
    public var alertBody: String?
    /// Ask for a background ("content-available") push.
    public var shouldSendContentAvailable: Bool
    /// Fields of the changed record copied into a query notification's
    /// `recordFields`; `nil` or empty: none.
    public var desiredKeys: [String]?
    /// When given, waiting notifications of the subscription with this key
    /// merge into the newest one (APNs `apns-collapse-id`), whatever zone or
    /// record they are about.
    public var collapseIDKey: String?

    public init(
        alertBody: String? = nil, shouldSendContentAvailable: Bool = false, desiredKeys: [String]? = nil,
        collapseIDKey: String? = nil
    ) {
        self.alertBody = alertBody
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.desiredKeys = desiredKeys
        self.collapseIDKey = collapseIDKey
    }
}
