import SyncCore

/// A subscription as a scenario describes it (`CKSubscription`), made
/// before the first step (`subscriptions:`) or by a `subscribe` step.
///
/// Names and raw values follow CloudKit Web Services, so a runner maps each
/// part onto the server's subscription types by raw value.
public struct SubscriptionSetup: Sendable, Equatable {
    /// The three kinds of subscription (`subscriptionType` on the wire).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `CKDatabaseSubscription`: any change in a database's custom zones.
        case database
        /// `CKRecordZoneSubscription`: any change in one zone.
        case zone
        /// `CKQuerySubscription`: records of one type matching a predicate.
        case query
    }

    /// Query filter comparators, spelled as on the wire.
    public enum Comparator: String, Sendable, Equatable, CaseIterable {
        case equals = "EQUALS"
        case notEquals = "NOT_EQUALS"
        case lessThan = "LESS_THAN"
        case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
        case greaterThan = "GREATER_THAN"
        case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
        case `in` = "IN"
        case notIn = "NOT_IN"
        case beginsWith = "BEGINS_WITH"
        case listContains = "LIST_CONTAINS"
    }

    /// One condition of a query subscription: `fieldName comparator value`.
    public struct Filter: Sendable, Equatable {
        public var fieldName: String
        public var comparator: Comparator
        public var value: FieldValue

        public init(_ fieldName: String, _ comparator: Comparator, _ value: FieldValue) {
            self.fieldName = fieldName
            self.comparator = comparator
            self.value = value
        }
    }

    /// The record changes a query subscription fires on (`firesOn`).
    public enum Trigger: String, Sendable, Equatable, CaseIterable, Comparable {
        case create
        case update
        case delete

        public static func < (lhs: Trigger, rhs: Trigger) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    /// What the notifications look like (`CKSubscription.NotificationInfo`).
    public struct NotificationInfo: Sendable, Equatable {
        public var alertBody: String?
        public var shouldSendContentAvailable: Bool
        public var desiredKeys: [String]?
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

    /// Who subscribes: a device (its user, and pushes from its own changes
    /// are not sent back to it) or a user.
    public var owner: Principal
    public var subscriptionID: String
    public var type: Kind
    public var database: DatabaseScope
    /// The zone of a zone subscription, or the zone a query subscription is limited to.
    public var zone: ZoneRef?
    /// Required for query subscriptions; limits the others to one type.
    public var recordType: String?
    /// Filters, ANDed; empty: every record of the type.
    public var predicate: [Filter]
    /// Query subscriptions only; in `create, update, delete` order.
    public var firesOn: [Trigger]
    public var firesOnce: Bool
    public var notificationInfo: NotificationInfo?

    public init(
        owner: Principal, subscriptionID: String, type: Kind, database: DatabaseScope = .private, zone: ZoneRef? = nil,
        recordType: String? = nil, predicate: [Filter] = [], firesOn: [Trigger] = [], firesOnce: Bool = false,
        notificationInfo: NotificationInfo? = nil
    ) {
        self.owner = owner
        self.subscriptionID = subscriptionID
        self.type = type
        self.database = database
        self.zone = zone
        self.recordType = recordType
        self.predicate = predicate
        self.firesOn = firesOn
        self.firesOnce = firesOnce
        self.notificationInfo = notificationInfo
    }
}
