import SyncCore

/// Where a commit looks for subscriptions: every subscription sits in exactly
/// one bucket, keyed by what a commit must have for it to fire, so routing a
/// commit never looks at subscriptions of other databases, zones or record types.
enum RouteKey: Hashable {
    case database(SubscriptionOwner, recordType: String?)
    case recordZone(SubscriptionOwner, zoneName: String, recordType: String?)
    /// `user` is `nil` in the public database, where every user's query
    /// subscriptions watch the same records; `zoneName` `nil`: any zone.
    case query(container: String, environment: ContainerEnvironment, scope: DatabaseScope, user: String?, recordType: String, zoneName: String?)
}
