import SyncCore

/// A subscription on the wire: `{"subscriptionID", "subscriptionType":
/// "query"|"zone"|"database", "zoneID"?, "recordType"?, "query"?, "firesOn"?,
/// "firesOnce"?, "notificationInfo"?}`. In a `subscriptions/modify` answer a
/// deletion is `{"subscriptionID", "deleted": true}`.
public struct WireSubscription: Codable, Sendable, Hashable {
    public var subscriptionID: String
    public var subscriptionType: String?
    public var zoneID: WireZoneID?
    public var recordType: String?
    public var query: WireQuery?
    public var firesOn: [String]?
    public var firesOnce: Bool?
    public var notificationInfo: WireNotificationInfo?
    public var deleted: Bool?

    public init(
        subscriptionID: String, subscriptionType: String? = nil, zoneID: WireZoneID? = nil, recordType: String? = nil,
        query: WireQuery? = nil, firesOn: [String]? = nil, firesOnce: Bool? = nil, notificationInfo: WireNotificationInfo? = nil,
        deleted: Bool? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
        self.zoneID = zoneID
        self.recordType = recordType
        self.query = query
        self.firesOn = firesOn
        self.firesOnce = firesOnce
        self.notificationInfo = notificationInfo
        self.deleted = deleted
    }

    public init(_ subscription: Subscription) {
        switch subscription {
        case .database(let s):
            self.init(
                subscriptionID: s.subscriptionID, subscriptionType: SubscriptionType.database.rawValue, recordType: s.recordType,
                notificationInfo: s.notificationInfo.map(WireNotificationInfo.init))
        case .recordZone(let s):
            self.init(
                subscriptionID: s.subscriptionID, subscriptionType: SubscriptionType.recordZone.rawValue, zoneID: WireZoneID(s.zoneID),
                recordType: s.recordType, notificationInfo: s.notificationInfo.map(WireNotificationInfo.init))
        case .query(let s):
            var firesOn: [String] = []
            if s.options.contains(.firesOnRecordCreation) { firesOn.append("create") }
            if s.options.contains(.firesOnRecordUpdate) { firesOn.append("update") }
            if s.options.contains(.firesOnRecordDeletion) { firesOn.append("delete") }
            let filters = s.predicate.filters.map {
                WireQueryFilter(comparator: $0.comparator.rawValue, fieldName: $0.fieldName, fieldValue: WireField($0.fieldValue))
            }
            self.init(
                subscriptionID: s.subscriptionID, subscriptionType: SubscriptionType.query.rawValue, zoneID: s.zoneID.map(WireZoneID.init),
                recordType: s.recordType, query: WireQuery(recordType: s.recordType, filterBy: filters), firesOn: firesOn,
                firesOnce: s.options.contains(.firesOnce), notificationInfo: s.notificationInfo.map(WireNotificationInfo.init))
        }
    }

    /// A deleted subscription in a `subscriptions/modify` answer.
    public init(deleted subscriptionID: String) {
        self.init(subscriptionID: subscriptionID, deleted: true)
    }
}

extension Subscription {
    /// The subscription a wire dictionary describes; `invalidArguments`
    /// naming the key when something is missing or wrong.
    public init(_ wire: WireSubscription) throws(CloudError) {
        let id = wire.subscriptionID
        func fail(_ problem: String) -> CloudError {
            CloudError(.invalidArguments, "Subscription '\(id)': \(problem).", subscriptionID: id)
        }
        guard let typeName = wire.subscriptionType else {
            throw fail("'subscriptionType' is missing; use query, zone or database")
        }
        guard let type = SubscriptionType(rawValue: typeName) ?? (typeName == "recordZone" ? .recordZone : nil) else {
            throw fail("'\(typeName)' is not a subscription type; use query, zone or database")
        }
        let info = wire.notificationInfo.map(NotificationInfo.init)
        switch type {
        case .database:
            self = .database(DatabaseSubscription(subscriptionID: id, recordType: wire.recordType, notificationInfo: info))
        case .recordZone:
            guard let zoneID = wire.zoneID else { throw fail("a zone subscription needs 'zoneID'") }
            self = .recordZone(RecordZoneSubscription(
                subscriptionID: id, zoneID: RecordZoneID(zoneID), recordType: wire.recordType, notificationInfo: info))
        case .query:
            guard let recordType = wire.query?.recordType ?? wire.recordType else {
                throw fail("a query subscription needs 'query' with a 'recordType'")
            }
            var filters: [QueryFilter] = []
            for (index, filter) in (wire.query?.filterBy ?? []).enumerated() {
                guard let comparator = QueryComparator(rawValue: filter.comparator) else {
                    let known = QueryComparator.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail("filterBy[\(index)]: '\(filter.comparator)' is not a comparator; use one of \(known)")
                }
                let value = try filter.fieldValue.fieldValue(name: "filterBy[\(index)].fieldValue")
                filters.append(QueryFilter(filter.fieldName, comparator, value))
            }
            var options: QuerySubscription.Options = []
            for event in wire.firesOn ?? [] {
                switch event {
                case "create": options.insert(.firesOnRecordCreation)
                case "update": options.insert(.firesOnRecordUpdate)
                case "delete": options.insert(.firesOnRecordDeletion)
                default: throw fail("firesOn holds '\(event)'; use create, update and delete")
                }
            }
            if wire.firesOnce == true { options.insert(.firesOnce) }
            self = .query(QuerySubscription(
                subscriptionID: id, recordType: recordType, predicate: QueryPredicate(filters), zoneID: wire.zoneID.map(RecordZoneID.init),
                options: options, notificationInfo: info))
        }
    }
}
