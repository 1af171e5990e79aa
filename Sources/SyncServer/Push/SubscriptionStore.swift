import SyncCore

/// Every subscription, and the routing index over them.
struct SubscriptionStore {
    private(set) var byOwner: [SubscriptionOwner: [String: Subscription]] = [:]
    private(set) var routes: [RouteKey: Set<SubscriptionKey>] = [:]
    private(set) var count = 0

    func subscription(_ key: SubscriptionKey) -> Subscription? {
        byOwner[key.owner]?[key.subscriptionID]
    }

    func subscriptions(of owner: SubscriptionOwner) -> [Subscription] {
        (byOwner[owner] ?? [:]).values.sorted { $0.subscriptionID < $1.subscriptionID }
    }

    func candidates(_ route: RouteKey) -> Set<SubscriptionKey> {
        routes[route] ?? []
    }

    /// The database subscriptions of `owner`, whatever their record type, by ID.
    func databaseSubscriptionKeys(of owner: SubscriptionOwner) -> [SubscriptionKey] {
        subscriptions(of: owner).compactMap { subscription in
            guard case .database = subscription else { return nil }
            return SubscriptionKey(owner: owner, subscriptionID: subscription.subscriptionID)
        }
    }

    /// The record zone subscriptions of `owner` on zone `zoneName`, whatever their record type, by ID.
    func recordZoneSubscriptionKeys(of owner: SubscriptionOwner, zoneName: String) -> [SubscriptionKey] {
        subscriptions(of: owner).compactMap { subscription in
            guard case .recordZone(let s) = subscription, s.zoneID.zoneName == zoneName else { return nil }
            return SubscriptionKey(owner: owner, subscriptionID: subscription.subscriptionID)
        }
    }

    mutating func save(_ subscription: Subscription, owner: SubscriptionOwner) {
        let key = SubscriptionKey(owner: owner, subscriptionID: subscription.subscriptionID)
        remove(key)
        byOwner[owner, default: [:]][subscription.subscriptionID] = subscription
        routes[Self.route(of: subscription, owner: owner), default: []].insert(key)
        count += 1
    }

    @discardableResult
    mutating func remove(_ key: SubscriptionKey) -> Subscription? {
        guard let existing = byOwner[key.owner]?.removeValue(forKey: key.subscriptionID) else { return nil }
        if byOwner[key.owner]?.isEmpty == true { byOwner[key.owner] = nil }
        let route = Self.route(of: existing, owner: key.owner)
        routes[route]?.remove(key)
        if routes[route]?.isEmpty == true { routes[route] = nil }
        count -= 1
        return existing
    }

    static func route(of subscription: Subscription, owner: SubscriptionOwner) -> RouteKey {
        switch subscription {
        case .database(let s):
            return .database(owner, recordType: s.recordType)
        case .recordZone(let s):
            return .recordZone(owner, zoneName: s.zoneID.zoneName, recordType: s.recordType)
        case .query(let s):
            let isPublic = owner.scope == .public
            return .query(
                container: owner.container, environment: owner.environment, scope: owner.scope,
                user: isPublic ? nil : owner.user, recordType: s.recordType, zoneName: isPublic ? nil : s.zoneID?.zoneName)
        }
    }

    // MARK: Placement rules

    /// Checks where a subscription may live and fills in zone owners; throws
    /// `invalidArguments` naming the rule it breaks.
    static func validated(_ subscription: Subscription, owner: SubscriptionOwner) throws(CloudError) -> Subscription {
        let id = subscription.subscriptionID
        try checkName(id, what: "subscription ID", subscriptionID: nil)
        func fail(_ reason: String) -> CloudError { CloudError(.invalidArguments, reason, subscriptionID: id) }
        if let type = subscription.recordType { try checkName(type, what: "record type", subscriptionID: id) }
        switch subscription {
        case .database(let s):
            guard owner.scope == .private || owner.scope == .shared else {
                throw fail("Database subscriptions live only in the private and shared databases; the public database supports only query subscriptions.")
            }
            return .database(s)
        case .recordZone(var s):
            guard owner.scope == .private else {
                throw fail(
                    "Record zone subscriptions live only in the private database (\(owner.scope.rawValue) was given); in the shared database use a database subscription, in the public database a query subscription.")
            }
            s.zoneID = try normalizedPrivateZone(s.zoneID, owner: owner, id: id)
            guard !s.zoneID.isDefaultZone else {
                throw CloudError(
                    .invalidArguments,
                    "Record zone subscriptions need a custom zone; the default zone does not support them (use a query subscription there).",
                    zoneID: s.zoneID, subscriptionID: id)
            }
            return .recordZone(s)
        case .query(var s):
            guard owner.scope == .public || owner.scope == .private else {
                throw fail("Query subscriptions live only in the public and private databases; the shared database supports only database subscriptions.")
            }
            guard s.options.firesOnAnyChange else {
                throw fail("A query subscription must fire on at least one of record creation, update or deletion.")
            }
            try s.predicate.validate()
            if let zoneID = s.zoneID {
                if owner.scope == .public {
                    guard zoneID.isDefaultZone else {
                        throw CloudError(
                            .invalidArguments,
                            "The public database has only the default zone (_defaultZone); a query subscription cannot watch zone '\(zoneID.zoneName)' there.",
                            zoneID: zoneID, subscriptionID: id)
                    }
                    s.zoneID = .defaultZone(ownerName: RecordZoneID.publicOwnerName)
                } else {
                    s.zoneID = try normalizedPrivateZone(zoneID, owner: owner, id: id)
                }
            }
            return .query(s)
        }
    }

    private static func normalizedPrivateZone(_ zoneID: RecordZoneID, owner: SubscriptionOwner, id: String) throws(CloudError) -> RecordZoneID {
        var zone = zoneID
        if zone.ownerName.isEmpty || zone.ownerName == RecordZoneID.currentUserName { zone.ownerName = owner.user }
        guard zone.ownerName == owner.user else {
            throw CloudError(
                .invalidArguments,
                "Zone '\(zone.zoneName)' belongs to \(zone.ownerName); a subscription in your private database can watch only your own zones.",
                zoneID: zone, subscriptionID: id)
        }
        try checkName(zone.zoneName, what: "zone name", subscriptionID: id)
        return zone
    }

    private static func checkName(_ name: String, what: String, subscriptionID: String?) throws(CloudError) {
        guard !name.isEmpty else {
            throw CloudError(.invalidArguments, "The \(what) of a subscription is empty.", subscriptionID: subscriptionID)
        }
        guard name.utf8.count <= 255 else {
            throw CloudError(.invalidArguments, "The \(what) '\(name.prefix(32))…' is longer than 255 bytes.", subscriptionID: subscriptionID)
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw CloudError(.invalidArguments, "The \(what) '\(name)' contains a control character.", subscriptionID: subscriptionID)
        }
    }
}
