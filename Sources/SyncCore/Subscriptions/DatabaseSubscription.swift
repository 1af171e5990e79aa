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
