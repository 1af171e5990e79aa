import SyncCore

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
