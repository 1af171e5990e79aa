/// Something changed in a record zone (`CKRecordZoneNotification`).
public struct RecordZoneNotification: Sendable, Hashable {
    public var notificationID: String
    public var subscriptionID: String
    public var containerIdentifier: String
    public var databaseScope: DatabaseScope
    public var recordZoneID: RecordZoneID
    public var alertBody: String?
    public var isPruned: Bool
    public var coalescedCount: Int

    public init(
        notificationID: String, subscriptionID: String, containerIdentifier: String, databaseScope: DatabaseScope,
        recordZoneID: RecordZoneID, alertBody: String? = nil, isPruned: Bool = false, coalescedCount: Int = 1
    ) {
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.recordZoneID = recordZoneID
        self.alertBody = alertBody
        self.isPruned = isPruned
        self.coalescedCount = coalescedCount
    }
}
