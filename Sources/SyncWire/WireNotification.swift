import SyncCore

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
