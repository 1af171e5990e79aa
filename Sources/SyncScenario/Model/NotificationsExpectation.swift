import SyncCore

/// Checks the notifications a device received since its previous
/// `notifications` check (or since the start).
public struct NotificationsExpectation: Sendable, Equatable {
    /// The kinds of notification, as `notificationType` spells them.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case database
        case recordZone
        case query
    }

    public var device: String
    /// How many notifications were delivered.
    public var count: Int?
    /// The `coalescedCount` of the latest one.
    public var coalescedCount: Int?
    /// The type every one of them has.
    public var type: Kind?
    /// The subscription every one of them comes from.
    public var subscriptionID: String?
    /// Query notifications: why each fired, in the order they arrived.
    public var reasons: [QueryNotification.Reason]?

    public init(
        device: String, count: Int? = nil, coalescedCount: Int? = nil, type: Kind? = nil, subscriptionID: String? = nil,
        reasons: [QueryNotification.Reason]? = nil
    ) {
        self.device = device
        self.count = count
        self.coalescedCount = coalescedCount
        self.type = type
        self.subscriptionID = subscriptionID
        self.reasons = reasons
    }
}
