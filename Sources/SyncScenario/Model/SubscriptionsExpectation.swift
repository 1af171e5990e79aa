import SyncCore

/// Checks which subscriptions a user (or a device's user) has in one database.
public struct SubscriptionsExpectation: Sendable, Equatable {
    public var owner: Principal
    public var database: DatabaseScope
    /// Exactly these subscription IDs, in any order.
    public var ids: [String]

    public init(owner: Principal, database: DatabaseScope = .private, ids: [String]) {
        self.owner = owner
        self.database = database
        self.ids = ids
    }
}
