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
