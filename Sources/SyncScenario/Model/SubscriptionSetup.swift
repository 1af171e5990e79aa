import SyncCore

/// A subscription as a scenario describes it (`CKSubscription`), made
/// before the first step (`subscriptions:`) or by a `subscribe` step.
///
/// The parts are SyncCore's subscription types; only the owner and the zone
/// differ from a `Subscription`: the zone is named as the scenario names it
/// and becomes a `RecordZoneID` when the step runs.
public struct SubscriptionSetup: Sendable, Equatable {
    /// Who subscribes: a device (its user, and pushes from its own changes
    /// are not sent back to it) or a user.
    public var owner: Principal
    public var subscriptionID: String
    /// `database`, `zone` (`SubscriptionType.recordZone`) or `query`.
    public var type: SubscriptionType
    public var database: DatabaseScope
    /// The zone of a zone subscription, or the zone a query subscription is limited to.
    public var zone: ZoneRef?
    /// Required for query subscriptions; limits the others to one type.
    public var recordType: String?
    /// Query subscriptions only: filters, ANDed; none: every record of the type.
    public var predicate: QueryPredicate
    /// Query subscriptions only: what it fires on (`firesOn`) and `firesOnce`.
    public var options: QuerySubscription.Options
    public var notificationInfo: NotificationInfo?

    public init(
        owner: Principal, subscriptionID: String, type: SubscriptionType, database: DatabaseScope = .private,
        zone: ZoneRef? = nil, recordType: String? = nil, predicate: QueryPredicate = .all,
        options: QuerySubscription.Options = [], notificationInfo: NotificationInfo? = nil
    ) {
        self.owner = owner
        self.subscriptionID = subscriptionID
        self.type = type
        self.database = database
        self.zone = zone
        self.recordType = recordType
        self.predicate = predicate
        self.options = options
        self.notificationInfo = notificationInfo
    }
}

extension SubscriptionSetup {
    /// The subscription to save, with the scenario's zone resolved to `zoneID`.
    ///
    /// - Throws: `invalidArguments` for a zone subscription without a zone.
    public func subscription(zoneID: RecordZoneID?) throws(CloudError) -> Subscription {
        switch type {
        case .database:
            return .database(DatabaseSubscription(subscriptionID: subscriptionID, recordType: recordType, notificationInfo: notificationInfo))
        case .recordZone:
            guard let zoneID else {
                throw CloudError(.invalidArguments, "Zone subscription '\(subscriptionID)' needs a zone.", subscriptionID: subscriptionID)
            }
            return .recordZone(RecordZoneSubscription(
                subscriptionID: subscriptionID, zoneID: zoneID, recordType: recordType, notificationInfo: notificationInfo))
        case .query:
            return .query(QuerySubscription(
                subscriptionID: subscriptionID, recordType: recordType ?? "", predicate: predicate, zoneID: zoneID, options: options,
                notificationInfo: notificationInfo))
        }
    }
}
