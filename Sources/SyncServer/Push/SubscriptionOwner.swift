import SyncCore

/// One user's database, as far as subscriptions go: subscriptions belong to
/// the user who made them, in one database of one container and environment.
struct SubscriptionOwner: Hashable, Comparable {
    var container: String
    var environment: ContainerEnvironment
    var scope: DatabaseScope
    var user: String

    static func < (a: Self, b: Self) -> Bool {
        (a.container, a.environment.rawValue, a.scope, a.user) < (b.container, b.environment.rawValue, b.scope, b.user)
    }
}
