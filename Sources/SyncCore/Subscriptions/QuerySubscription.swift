/// Fires when a record of one type that matches a predicate is created,
/// updated or deleted, in the public or private database (`CKQuerySubscription`).
public struct QuerySubscription: Sendable, Hashable {
    /// When the subscription fires, mirroring `CKQuerySubscription.Options`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// A new record matches the predicate.
        public static let firesOnRecordCreation = Options(rawValue: 1 << 0)
        /// A record that matched the predicate still matches after the change.
        public static let firesOnRecordUpdate = Options(rawValue: 1 << 1)
        /// A record that matched the predicate was deleted.
        public static let firesOnRecordDeletion = Options(rawValue: 1 << 2)
        /// The server deletes the subscription after its first notification.
        public static let firesOnce = Options(rawValue: 1 << 3)

        /// Whether at least one of creation, update or deletion is set.
        public var firesOnAnyChange: Bool {
            !isDisjoint(with: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
        }
    }

    public var subscriptionID: String
    public var recordType: String
    public var predicate: QueryPredicate
    /// Only records of this zone; `nil`: every zone of the database.
    public var zoneID: RecordZoneID?
    public var options: Options
    public var notificationInfo: NotificationInfo?

    public init(
        subscriptionID: String, recordType: String, predicate: QueryPredicate = .all, zoneID: RecordZoneID? = nil,
        options: Options, notificationInfo: NotificationInfo? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.recordType = recordType
        self.predicate = predicate
        self.zoneID = zoneID
        self.options = options
        self.notificationInfo = notificationInfo
    }

    /// Why a record change fires this subscription, or `nil` if it does not.
    ///
    /// Created: the record is new and matches. Updated: it matched before the
    /// change and still matches. Deleted: it matched before it was deleted.
    /// A record that starts or stops matching through an update does not fire.
    public func reason(before: Record?, after: Record?) -> QueryNotification.Reason? {
        let type = after?.recordType ?? before?.recordType
        guard type == recordType else { return nil }
        switch (before, after) {
        case (nil, let after?):
            return options.contains(.firesOnRecordCreation) && predicate.matches(after.fields) ? .recordCreated : nil
        case (let before?, let after?):
            return options.contains(.firesOnRecordUpdate) && predicate.matches(before.fields) && predicate.matches(after.fields)
                ? .recordUpdated : nil
        case (let before?, nil):
            return options.contains(.firesOnRecordDeletion) && predicate.matches(before.fields) ? .recordDeleted : nil
        case (nil, nil):
            return nil
        }
    }
}
