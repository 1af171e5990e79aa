/// A record matching a query subscription changed (`CKQueryNotification`).
public struct QueryNotification: Sendable, Hashable {
    /// Why the query subscription fired (`CKQueryNotification.Reason`).
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        case recordCreated
        case recordUpdated
        case recordDeleted
    }

    public var notificationID: String
    public var subscriptionID: String
    public var containerIdentifier: String
    public var databaseScope: DatabaseScope
    public var queryNotificationReason: Reason
    public var recordID: RecordID
    /// The subscription's `desiredKeys` of the record after the change
    /// (none for a deletion), minus any pruned to fit the size limit.
    public var recordFields: RecordFields
    public var alertBody: String?
    public var isPruned: Bool
    public var coalescedCount: Int

    public init(
        notificationID: String, subscriptionID: String, containerIdentifier: String, databaseScope: DatabaseScope,
        queryNotificationReason: Reason, recordID: RecordID, recordFields: RecordFields = RecordFields(),
        alertBody: String? = nil, isPruned: Bool = false, coalescedCount: Int = 1
    ) {
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.queryNotificationReason = queryNotificationReason
        self.recordID = recordID
        self.recordFields = recordFields
        self.alertBody = alertBody
        self.isPruned = isPruned
        self.coalescedCount = coalescedCount
    }
}
