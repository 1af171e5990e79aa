/// Something changed in a database (`CKDatabaseNotification`).
public struct DatabaseNotification: Sendable, Hashable {
    public var notificationID: String
    public var subscriptionID: String
    public var containerIdentifier: String
    public var databaseScope: DatabaseScope
    public var alertBody: String?
    /// Some of the payload was dropped to fit the push size limit.
    public var isPruned: Bool
    /// How many notifications this one stands for (itself included).
    public var coalescedCount: Int

    public init(
        notificationID: String, subscriptionID: String, containerIdentifier: String, databaseScope: DatabaseScope,
        alertBody: String? = nil, isPruned: Bool = false, coalescedCount: Int = 1
    ) {
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.alertBody = alertBody
        self.isPruned = isPruned
        self.coalescedCount = coalescedCount
    }
}
