import SyncCore

/// A query filter on the wire: `{"comparator", "fieldName", "fieldValue": {"value", "type"?}}`.
public struct WireQueryFilter: Codable, Sendable, Hashable {
    public var comparator: String
    public var fieldName: String
    public var fieldValue: WireField

    public init(comparator: String, fieldName: String, fieldValue: WireField) {
        self.comparator = comparator
        self.fieldName = fieldName
        self.fieldValue = fieldValue
    }
}

/// A query on the wire: `{"recordType", "filterBy": [...], "sortBy": [...]}`
/// (subscriptions use `recordType` and `filterBy`; `records/query` all three).
public struct WireQuery: Codable, Sendable, Hashable {
    public var recordType: String
    public var filterBy: [WireQueryFilter]?
    public var sortBy: [WireQuerySort]?

    public init(recordType: String, filterBy: [WireQueryFilter]? = nil, sortBy: [WireQuerySort]? = nil) {
        self.recordType = recordType
        self.filterBy = filterBy
        self.sortBy = sortBy
    }

    /// The filters, ANDed; `invalidArguments` naming the filter that is wrong.
    public func predicate(context: String = "") throws(CloudError) -> QueryPredicate {
        var filters: [QueryFilter] = []
        for (index, filter) in (filterBy ?? []).enumerated() {
            guard let comparator = QueryComparator(rawValue: filter.comparator) else {
                let known = QueryComparator.allCases.map(\.rawValue).joined(separator: ", ")
                throw CloudError(.invalidArguments, "\(context)filterBy[\(index)]: '\(filter.comparator)' is not a comparator; use one of \(known).")
            }
            let value = try filter.fieldValue.fieldValue(name: "filterBy[\(index)].fieldValue")
            filters.append(QueryFilter(filter.fieldName, comparator, value))
        }
        return QueryPredicate(filters)
    }

    /// The whole query: type, filters and sort descriptors.
    public func recordQuery() throws(CloudError) -> RecordQuery {
        RecordQuery(
            recordType: recordType, predicate: try predicate(),
            sortBy: (sortBy ?? []).map { RecordQuery.Sort($0.fieldName, ascending: $0.ascending ?? true) })
    }
}

/// A sort descriptor on the wire: `{"fieldName", "ascending"?}` (ascending by default).
public struct WireQuerySort: Codable, Sendable, Hashable {
    public var fieldName: String
    public var ascending: Bool?

    public init(fieldName: String, ascending: Bool? = nil) {
        self.fieldName = fieldName
        self.ascending = ascending
    }
}

/// `notificationInfo` on the wire.
public struct WireNotificationInfo: Codable, Sendable, Hashable {
    public var alertBody: String?
    public var shouldSendContentAvailable: Bool?
    public var desiredKeys: [String]?
    /// Apple's Web Services and CloudKit JS name for ``desiredKeys``: the
    /// fields a query notification carries. Read as `desiredKeys` when that is absent.
    public var additionalFields: [String]?
    public var collapseIDKey: String?

    public init(
        alertBody: String? = nil, shouldSendContentAvailable: Bool? = nil, desiredKeys: [String]? = nil, collapseIDKey: String? = nil,
        additionalFields: [String]? = nil
    ) {
        self.alertBody = alertBody
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.desiredKeys = desiredKeys
        self.additionalFields = additionalFields
        self.collapseIDKey = collapseIDKey
    }

    public init(_ info: NotificationInfo) {
        self.init(
            alertBody: info.alertBody, shouldSendContentAvailable: info.shouldSendContentAvailable, desiredKeys: info.desiredKeys,
            collapseIDKey: info.collapseIDKey)
    }
}

extension NotificationInfo {
    public init(_ wire: WireNotificationInfo) {
        self.init(
            alertBody: wire.alertBody, shouldSendContentAvailable: wire.shouldSendContentAvailable ?? false,
            desiredKeys: wire.desiredKeys ?? wire.additionalFields, collapseIDKey: wire.collapseIDKey)
    }
}

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

/// A push notification as SyncScope's state files keep it (checkpoints of
/// waiting notifications). The webcourier long-poll answers Apple's push form
/// instead: ``WirePushPayload``.
public struct WireNotification: Codable, Sendable, Hashable {
    public var notificationID: String
    public var notificationType: String
    public var subscriptionID: String
    public var containerIdentifier: String
    public var databaseScope: String
    public var zoneID: WireZoneID?
    public var recordName: String?
    public var queryNotificationReason: String?
    public var recordFields: [String: WireField]?
    public var alertBody: String?
    public var isPruned: Bool
    public var coalescedCount: Int

    public init(_ notification: CloudNotification) {
        notificationID = notification.notificationID
        notificationType = notification.notificationType.rawValue
        subscriptionID = notification.subscriptionID
        containerIdentifier = notification.containerIdentifier
        databaseScope = notification.databaseScope.rawValue
        zoneID = notification.zoneID.map(WireZoneID.init)
        alertBody = notification.alertBody
        isPruned = notification.isPruned
        coalescedCount = notification.coalescedCount
        if case .query(let n) = notification {
            recordName = n.recordID.recordName
            queryNotificationReason = n.queryNotificationReason.rawValue
            var fields: [String: WireField] = [:]
            for field in n.recordFields { fields[field.name] = WireField(field.value) }
            recordFields = fields.isEmpty ? nil : fields
        }
    }
}

extension CloudNotification {
    /// The notification a wire dictionary describes.
    public init(_ wire: WireNotification) throws(CloudError) {
        func fail(_ problem: String) -> CloudError {
            CloudError(.invalidArguments, "Notification '\(wire.notificationID)': \(problem).", subscriptionID: wire.subscriptionID)
        }
        guard let scope = DatabaseScope(rawValue: wire.databaseScope) else {
            throw fail("'\(wire.databaseScope)' is not a database scope")
        }
        switch NotificationType(rawValue: wire.notificationType) {
        case .database:
            self = .database(DatabaseNotification(
                notificationID: wire.notificationID, subscriptionID: wire.subscriptionID, containerIdentifier: wire.containerIdentifier,
                databaseScope: scope, alertBody: wire.alertBody, isPruned: wire.isPruned, coalescedCount: wire.coalescedCount))
        case .recordZone:
            guard let zoneID = wire.zoneID else { throw fail("a recordZone notification needs 'zoneID'") }
            self = .recordZone(RecordZoneNotification(
                notificationID: wire.notificationID, subscriptionID: wire.subscriptionID, containerIdentifier: wire.containerIdentifier,
                databaseScope: scope, recordZoneID: RecordZoneID(zoneID), alertBody: wire.alertBody, isPruned: wire.isPruned,
                coalescedCount: wire.coalescedCount))
        case .query:
            guard let zoneID = wire.zoneID, let recordName = wire.recordName else {
                throw fail("a query notification needs 'zoneID' and 'recordName'")
            }
            guard let reason = wire.queryNotificationReason.flatMap(QueryNotification.Reason.init(rawValue:)) else {
                throw fail("a query notification needs 'queryNotificationReason' (recordCreated, recordUpdated or recordDeleted)")
            }
            var fields = RecordFields()
            for name in (wire.recordFields ?? [:]).keys.sorted() {
                guard let field = wire.recordFields?[name] else { continue }
                fields[name] = try field.fieldValue(name: name, recordName: recordName)
            }
            self = .query(QueryNotification(
                notificationID: wire.notificationID, subscriptionID: wire.subscriptionID, containerIdentifier: wire.containerIdentifier,
                databaseScope: scope, queryNotificationReason: reason,
                recordID: RecordID(recordName: recordName, zoneID: RecordZoneID(zoneID)), recordFields: fields,
                alertBody: wire.alertBody, isPruned: wire.isPruned, coalescedCount: wire.coalescedCount))
        case nil:
            throw fail("'\(wire.notificationType)' is not a notification type; use database, recordZone or query")
        }
    }
}
