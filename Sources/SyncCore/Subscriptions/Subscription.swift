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

/// The three kinds of subscription, named as CloudKit Web Services puts them on the wire.
public enum SubscriptionType: String, Sendable, Hashable, Codable, CaseIterable {
    case query
    case recordZone = "zone"
    case database
}

/// Fires when records change in any custom zone of a private or shared database
/// (`CKDatabaseSubscription`).
public struct DatabaseSubscription: Sendable, Hashable {
    public var subscriptionID: String
    /// Only changes to records of this type fire; `nil`: any type.
    public var recordType: String?
    public var notificationInfo: NotificationInfo?

    public init(subscriptionID: String, recordType: String? = nil, notificationInfo: NotificationInfo? = nil) {
        self.subscriptionID = subscriptionID
        self.recordType = recordType
        self.notificationInfo = notificationInfo
    }
}

/// Fires when records change in one custom zone of the private database
/// (`CKRecordZoneSubscription`).
public struct RecordZoneSubscription: Sendable, Hashable {
    public var subscriptionID: String
    public var zoneID: RecordZoneID
    /// Only changes to records of this type fire; `nil`: any type.
    public var recordType: String?
    public var notificationInfo: NotificationInfo?

    public init(
        subscriptionID: String, zoneID: RecordZoneID, recordType: String? = nil, notificationInfo: NotificationInfo? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.zoneID = zoneID
        self.recordType = recordType
        self.notificationInfo = notificationInfo
    }
}

/// Fires when a record of one type that matches a predicate is created,
/// updated or deleted, in the public or private database (`CKQuerySubscription`).
public struct QuerySubscription: Sendable, Hashable {
    /// When the subscription fires, mirroring `CKQuerySubscription.Options`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// A new record matches the predicate.
        public static let firesOnRecordCreation = Options(rawValue: 1 << 0)
        /// A record that matched the predicate still matches after the change.
        public static let firesOnRecordUpdate = Options(rawValue: 1 << 1)
        /// A record that matched the predicate was deleted.
        public static let firesOnRecordDeletion = Options(rawValue: 1 << 2)
        /// The server deletes the subscription after its first notification.
        public static let firesOnce = Options(rawValue: 1 << 3)

        /// Whether at least one of creation, update or deletion is set.
        public var firesOnAnyChange: Bool {
            !isDisjoint(with: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
        }
    }

    public var subscriptionID: String
    public var recordType: String
    public var predicate: QueryPredicate
    /// Only records of this zone; `nil`: every zone of the database.
    public var zoneID: RecordZoneID?
    public var options: Options
    public var notificationInfo: NotificationInfo?

    public init(
        subscriptionID: String, recordType: String, predicate: QueryPredicate = .all, zoneID: RecordZoneID? = nil,
        options: Options, notificationInfo: NotificationInfo? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.recordType = recordType
        self.predicate = predicate
        self.zoneID = zoneID
        self.options = options
        self.notificationInfo = notificationInfo
    }

    /// Why a record change fires this subscription, or `nil` if it does not.
    ///
    /// Created: the record is new and matches. Updated: it matched before the
    /// change and still matches. Deleted: it matched before it was deleted.
    /// A record that starts or stops matching through an update does not fire.
    public func reason(before: Record?, after: Record?) -> QueryNotification.Reason? {
        let type = after?.recordType ?? before?.recordType
        guard type == recordType else { return nil }
        switch (before, after) {
        case (nil, let after?):
            return options.contains(.firesOnRecordCreation) && predicate.matches(after.fields) ? .recordCreated : nil
        case (let before?, let after?):
            return options.contains(.firesOnRecordUpdate) && predicate.matches(before.fields) && predicate.matches(after.fields)
                ? .recordUpdated : nil
        case (let before?, nil):
            return options.contains(.firesOnRecordDeletion) && predicate.matches(before.fields) ? .recordDeleted : nil
        case (nil, nil):
            return nil
        }
    }
}

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

/// The outcome of one successful `subscriptions/modify` item.
public enum SubscriptionOperationResult: Sendable, Hashable {
    /// The subscription as the server stored it (zone owners filled in).
    case saved(Subscription)
    case deleted(subscriptionID: String)
}
