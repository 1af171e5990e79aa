

/// A subscription of any of the three kinds (`CKSubscription`).
public enum Subscription: Sendable, Hashable {
    case database(DatabaseSubscription)
    case recordZone(RecordZoneSubscription)
    case query(QuerySubscription)

    public var subscriptionID: String {
        switch self {
        case .database(let s): s.subscriptionID
        case .recordZone(let s): s.subscriptionID
        case .query(let s): s.subscriptionID
        }
    }

    public var subscriptionType: SubscriptionType {
        switch self {
        case .database: .database
        case .recordZone: .recordZone
        case .query: .query
        }
    }

    /// The record type the subscription is limited to, if any.
    public var recordType: String? {
        switch self {
        case .database(let s): s.recordType
        case .recordZone(let s): s.recordType
        case .query(let s): s.recordType
        }
    }

    public var notificationInfo: NotificationInfo? {
        switch self {
        case .database(let s): s.notificationInfo
        case .recordZone(let s): s.notificationInfo
        case .query(let s): s.notificationInfo
        }
    }

    /// Whether the server deletes the subscription after its first notification.
    public var firesOnce: Bool {
        if case .query(let s) = self { return s.options.contains(.firesOnce) }
        return false
    }
}
