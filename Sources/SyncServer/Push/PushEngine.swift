import SyncCore

/// The simulated push service: subscriptions, devices and their push channels.
///
/// It turns each ``Commit`` and each ``DatabaseChangeEvent`` (a zone created,
/// deleted, shared in or revoked) of the ``ServerEngine`` into at most one
/// notification per subscription, sends it to the subscription owner's
/// devices (not to the device that made the change), coalesces waiting
/// notifications, holds only the latest one for an offline device, and prunes
/// payloads over the size limit. It is plain, synchronous and deterministic:
/// time moves only through the `now` its callers pass, and notification IDs
/// come from a seeded generator. Not thread-safe: ``SimulatedServer`` keeps it
/// under the same lock as the engine.
public final class PushEngine {
    public let configuration: PushConfiguration
    public private(set) var statistics = PushStatistics()

    var random: SeededRandom
    var store = SubscriptionStore()
    var devices: [String: DeviceChannel] = [:]
    var devicesByUser: [String: Set<String>] = [:]
    var sequence: UInt64 = 0
    var events: [PushEvent] = []
    /// The fault rules in force (shared with the engine's calls); `nil`: none ever installed.
    var faults: FaultInjector?

    public init(configuration: PushConfiguration = PushConfiguration(), seed: UInt64 = 1) {
        self.configuration = configuration
        random = SeededRandom(seed: seed).derived(0x5055_5348)  // "PUSH"
    }

    // MARK: Subscriptions

    /// `subscriptions/modify`: saves (creating or replacing) and deletes
    /// subscriptions of `user` in one database. Results come in order: the
    /// saves, then the deletions; each item succeeds or fails on its own.
    public func modifySubscriptions(
        user: String, database: DatabaseID, saving: [Subscription], deleting: [String]
    ) throws(CloudError) -> [Result<SubscriptionOperationResult, CloudError>] {
        let total = saving.count + deleting.count
        guard total <= configuration.maxOperationsPerRequest else {
            throw CloudError(
                .limitExceeded,
                "This request has \(total) subscription operations; at most \(configuration.maxOperationsPerRequest) are allowed in one request. Nothing was applied.")
        }
        let owner = SubscriptionOwner(container: database.container, environment: database.environment, scope: database.scope, user: user)
        var seen = Set<String>()
        var results: [Result<SubscriptionOperationResult, CloudError>] = []
        results.reserveCapacity(total)
        for subscription in saving {
            let id = subscription.subscriptionID
            guard seen.insert(id).inserted else {
                results.append(.failure(duplicate(id)))
                continue
            }
            do {
                let valid = try SubscriptionStore.validated(subscription, owner: owner)
                store.save(valid, owner: owner)
                results.append(.success(.saved(valid)))
            } catch {
                results.append(.failure(error))
            }
        }
        for id in deleting {
            guard seen.insert(id).inserted else {
                results.append(.failure(duplicate(id)))
                continue
            }
            if store.remove(SubscriptionKey(owner: owner, subscriptionID: id)) != nil {
                results.append(.success(.deleted(subscriptionID: id)))
            } else {
                results.append(.failure(CloudError(
                    .unknownItem, "There is no subscription '\(id)' in your \(database.scope.rawValue) database, so it cannot be deleted.",
                    subscriptionID: id)))
            }
        }
        return results
    }

    private func duplicate(_ id: String) -> CloudError {
        CloudError(.invalidArguments, "Subscription '\(id)' appears more than once in this request.", subscriptionID: id)
    }

    /// `subscriptions/lookup` (with IDs, in their order) and `subscriptions/list`
    /// (`nil`: every subscription of `user` in the database, by ID).
    public func fetchSubscriptions(user: String, database: DatabaseID, subscriptionIDs: [String]?) -> [Result<Subscription, CloudError>] {
        let owner = SubscriptionOwner(container: database.container, environment: database.environment, scope: database.scope, user: user)
        guard let subscriptionIDs else { return store.subscriptions(of: owner).map { .success($0) } }
        return subscriptionIDs.map { id in
            if let found = store.subscription(SubscriptionKey(owner: owner, subscriptionID: id)) { return .success(found) }
            return .failure(CloudError(
                .unknownItem, "There is no subscription '\(id)' in your \(database.scope.rawValue) database.", subscriptionID: id))
        }
    }

    /// How many subscriptions the server holds, for every user.
    public var subscriptionCount: Int { store.count }

    // MARK: Devices

    /// Ties a device (its push token) to `user` for one container and
    /// environment (`tokens/register`). A device registered to another user
    /// moves to this one and loses what was waiting for the other.
    public func registerDevice(
        _ deviceID: String, user: String, container: String, environment: ContainerEnvironment, now: Milliseconds
    ) throws(CloudError) {
        guard !deviceID.isEmpty, deviceID.utf8.count <= 255,
              !deviceID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CloudError(.invalidArguments, "A device ID must be 1 to 255 bytes without control characters.")
        }
        let target = PushContainer(container: container, environment: environment)
        if let device = devices[deviceID] {
            if device.user != user {
                devicesByUser[device.user]?.remove(deviceID)
                if devicesByUser[device.user]?.isEmpty == true { devicesByUser[device.user] = nil }
                device.user = user
                device.containers = []
                device.pending = []
                device.held = nil
                device.inbox = []
                device.inboxQueuedAt = [:]
                devicesByUser[user, default: []].insert(deviceID)
            }
            guard device.containers.insert(target).inserted else { return }
        } else {
            let device = DeviceChannel(id: deviceID, user: user)
            device.containers.insert(target)
            devices[deviceID] = device
            devicesByUser[user, default: []].insert(deviceID)
        }
        log(now, .deviceRegistered(deviceID: deviceID, user: user))
    }

    /// The registered device IDs of `user` (every user: `nil`), sorted.
    public func deviceIDs(of user: String? = nil) -> [String] {
        guard let user else { return devices.keys.sorted() }
        return (devicesByUser[user] ?? []).sorted()
    }

    public func isOnline(_ deviceID: String) -> Bool? { devices[deviceID]?.online }

    /// Takes a device offline (the push service then keeps only its latest
    /// notification) or back online (that notification is sent again).
    /// First delivers what was due by `now`, and returns those deliveries.
    @discardableResult
    public func setOnline(_ deviceID: String, _ online: Bool, now: Milliseconds) throws(CloudError) -> [Delivery] {
        guard let device = devices[deviceID] else { throw unknownDevice(deviceID) }
        let delivered = deliverDue(now: now)
        guard device.online != online else { return delivered }
        device.online = online
        log(now, .deviceOnline(deviceID: deviceID, online: online))
        if online, var held = device.held {
            device.held = nil
            held.sendAt = now
            held.arrivesAt = now + configuration.deliveryLatency
            device.pending.append(held)
            log(now, .queued(deviceID: deviceID, notificationID: held.notification.notificationID, arrivesAt: held.arrivesAt))
        }
        return delivered
    }

    private func unknownDevice(_ deviceID: String) -> CloudError {
        CloudError(.unknownItem, "No device '\(deviceID)' is registered for push notifications.")
    }

    // MARK: Routing commits

    /// Turns one commit into notifications: called by the engine after each
    /// successful `records/modify`.
    public func handle(_ commit: Commit) {
        guard !commit.changes.isEmpty else { return }
        statistics.commitsObserved += 1
        // No subscription anywhere: nothing to route (a server without
        // subscribers pays nothing per commit here).
        guard store.count > 0 else { return }
        let now = commit.time
        let types = Set(commit.changes.map(\.recordType)).sorted()
        let typeFilters: [String?] = [nil] + types
        let zone = commit.zoneID
        var routes: [RouteKey] = []
        switch commit.ownerScope {
        case .public:
            for type in types {
                routes.append(.query(container: commit.container, environment: commit.environment, scope: .public, user: nil, recordType: type, zoneName: nil))
            }
        case .private, .shared:
            let owner = zone.ownerName
            let privateDB = SubscriptionOwner(container: commit.container, environment: commit.environment, scope: .private, user: owner)
            if !zone.isDefaultZone {
                for type in typeFilters {
                    routes.append(.database(privateDB, recordType: type))
                    routes.append(.recordZone(privateDB, zoneName: zone.zoneName, recordType: type))
                }
                for participant in commit.participants.sorted() {
                    let sharedDB = SubscriptionOwner(container: commit.container, environment: commit.environment, scope: .shared, user: participant)
                    for type in typeFilters { routes.append(.database(sharedDB, recordType: type)) }
                }
            }
            for type in types {
                for zoneName in [nil, zone.zoneName] {
                    routes.append(.query(container: commit.container, environment: commit.environment, scope: .private, user: owner, recordType: type, zoneName: zoneName))
                }
            }
        }
        var candidates = Set<SubscriptionKey>()
        for route in routes { candidates.formUnion(store.candidates(route)) }
        statistics.candidatesExamined += candidates.count

        let target = PushContainer(container: commit.container, environment: commit.environment)
        for key in candidates.sorted() {
            guard let subscription = store.subscription(key),
                  let fired = notification(for: subscription, key: key, commit: commit)
            else { continue }
            send(fired, for: subscription, key: key, in: target, originatingDeviceID: commit.caller.deviceID, now: now)
        }
    }

    /// Sends one fired notification to the subscription owner's devices
    /// registered for `target`, except the device that made the change.
    private func send(
        _ fired: Fired, for subscription: Subscription, key: SubscriptionKey, in target: PushContainer, originatingDeviceID: String?,
        now: Milliseconds
    ) {
        var notification = fired.notification
        statistics.notificationsCreated += 1
        log(now, .notificationCreated(user: key.owner.user, notification: notification, matchedChanges: fired.matched))
        if let report = notification.prune(toFit: configuration.payloadLimit) {
            statistics.pruned += 1
            log(now, .pruned(notificationID: notification.notificationID, subscriptionID: key.subscriptionID, report: report))
        }
        for deviceID in (devicesByUser[key.owner.user] ?? []).sorted() {
            guard let device = devices[deviceID], device.containers.contains(target) else { continue }
            if deviceID == originatingDeviceID {
                log(now, .originatorSkipped(deviceID: deviceID, notificationID: notification.notificationID))
                continue
            }
            enqueue(notification, subscription: key, collapseKey: fired.collapseKey, on: device, now: now)
        }
        if subscription.firesOnce {
            store.remove(key)
            log(now, .subscriptionDeleted(user: key.owner.user, subscriptionID: key.subscriptionID))
        }
    }

    // MARK: Routing database changes

    /// Turns one zone-level change of a user's database into notifications:
    /// called by the engine when a zone is created, deleted, purged, dropped
    /// by an encrypted-data reset, shared in or revoked.
    ///
    /// Every database subscription of that database fires once, whatever its
    /// record type: a zone appearing or going away changes which records the
    /// database holds, and the server does not look inside the zone to see
    /// which types those are. Coalescing works as for record changes (collapse
    /// key: the zone, or the subscription's `collapseIDKey`).
    ///
    /// When a private zone goes away, its record zone subscriptions go with it
    /// (as in CloudKit) and do not fire: the zone is gone, and the database
    /// subscriptions are what announce zone changes.
    public func handle(_ event: DatabaseChangeEvent) {
        statistics.databaseChangesObserved += 1
        let now = event.time
        let owner = SubscriptionOwner(container: event.container, environment: event.environment, scope: event.scope, user: event.user)
        if event.scope == .private, case .zoneDeleted = event.change {
            // What lived in the zone goes with it: its zone subscriptions and
            // the query subscriptions limited to it.
            for subscription in store.subscriptions(of: owner) {
                let inZone: Bool = switch subscription {
                case .recordZone(let s): s.zoneID.zoneName == event.zoneID.zoneName
                case .query(let s): s.zoneID?.zoneName == event.zoneID.zoneName
                case .database: false
                }
                guard inZone else { continue }
                store.remove(SubscriptionKey(owner: owner, subscriptionID: subscription.subscriptionID))
                log(now, .subscriptionRemovedWithZone(user: event.user, subscriptionID: subscription.subscriptionID, zoneID: event.zoneID))
            }
        }
        let keys = store.databaseSubscriptionKeys(of: owner)
        statistics.candidatesExamined += keys.count
        let target = PushContainer(container: event.container, environment: event.environment)
        for key in keys {
            guard let subscription = store.subscription(key), case .database(let s) = subscription else { continue }
            let info = s.notificationInfo
            let n = DatabaseNotification(
                notificationID: nextNotificationID(), subscriptionID: s.subscriptionID, containerIdentifier: event.container,
                databaseScope: event.scope, alertBody: info?.alertBody)
            let collapseKey = info?.collapseIDKey.map { CollapseKey.id($0) } ?? .zone(event.zoneID)
            let fired = Fired(notification: .database(n), matched: 1, collapseKey: collapseKey)
            send(fired, for: subscription, key: key, in: target, originatingDeviceID: event.originatingDeviceID, now: now)
        }
    }

    private struct Fired {
        var notification: CloudNotification
        var matched: Int
        var collapseKey: CollapseKey
    }

    /// The one notification `subscription` gets for `commit`, if it fires.
    private func notification(for subscription: Subscription, key: SubscriptionKey, commit: Commit) -> Fired? {
        let info = subscription.notificationInfo
        let scope = key.owner.scope
        let zone = commit.zoneID
        func collapse(_ fallback: CollapseKey) -> CollapseKey { info?.collapseIDKey.map { .id($0) } ?? fallback }
        switch subscription {
        case .database(let s):
            let matched = s.recordType.map { type in commit.changes.count { $0.recordType == type } } ?? commit.changes.count
            guard matched > 0 else { return nil }
            let n = DatabaseNotification(
                notificationID: nextNotificationID(), subscriptionID: s.subscriptionID, containerIdentifier: commit.container,
                databaseScope: scope, alertBody: info?.alertBody)
            return Fired(notification: .database(n), matched: matched, collapseKey: collapse(.zone(zone)))
        case .recordZone(let s):
            guard s.zoneID == zone else { return nil }
            let matched = s.recordType.map { type in commit.changes.count { $0.recordType == type } } ?? commit.changes.count
            guard matched > 0 else { return nil }
            let n = RecordZoneNotification(
                notificationID: nextNotificationID(), subscriptionID: s.subscriptionID, containerIdentifier: commit.container,
                databaseScope: scope, recordZoneID: zone, alertBody: info?.alertBody)
            return Fired(notification: .recordZone(n), matched: matched, collapseKey: collapse(.zone(zone)))
        case .query(let s):
            if let wanted = s.zoneID, scope != .public, wanted != zone { return nil }
            var matched = 0
            var last: (change: CommittedChange, reason: QueryNotification.Reason)?
            for change in commit.changes {
                if let reason = s.reason(before: change.before, after: change.after) {
                    matched += 1
                    last = (change, reason)
                }
            }
            guard let last else { return nil }
            var fields = RecordFields()
            if let keys = info?.desiredKeys, !keys.isEmpty, let after = last.change.after {
                fields = after.fields.filtered(to: keys)
            }
            let n = QueryNotification(
                notificationID: nextNotificationID(), subscriptionID: s.subscriptionID, containerIdentifier: commit.container,
                databaseScope: scope, queryNotificationReason: last.reason, recordID: last.change.recordID, recordFields: fields,
                alertBody: info?.alertBody, coalescedCount: matched)
            return Fired(notification: .query(n), matched: matched, collapseKey: collapse(.record(last.change.recordID)))
        }
    }

    /// A UUID-shaped ID from the seeded generator.
    /// (Written byte by byte: every commit that fires makes one, coalesced or not.)
    private func nextNotificationID() -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(36)
        for (i, byte) in random.bytes(16).enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { utf8.append(UInt8(ascii: "-")) }
            utf8.append(Self.hexDigits[Int(byte >> 4)])
            utf8.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    // MARK: Channels

    private func enqueue(
        _ notification: CloudNotification, subscription: SubscriptionKey, collapseKey: CollapseKey, on device: DeviceChannel,
        now: Milliseconds
    ) {
        if let i = device.pending.firstIndex(where: {
            $0.subscription == subscription && $0.collapseKey == collapseKey && now < $0.sendAt
        }) {
            let older = device.pending[i].notification
            var survivor = notification
            survivor.coalescedCount = older.coalescedCount + notification.coalescedCount
            device.pending[i].notification = survivor
            device.pending[i].lastChangeAt = max(device.pending[i].lastChangeAt, now)
            statistics.coalesced += 1
            log(now, .coalesced(
                deviceID: device.id, survivorID: survivor.notificationID, mergedID: older.notificationID,
                coalescedCount: survivor.coalescedCount))
            return
        }
        sequence += 1
        let sendAt = now + configuration.coalescingWindow
        let item = PendingItem(
            notification: notification, subscription: subscription, collapseKey: collapseKey, firstChangeAt: now, lastChangeAt: now,
            sendAt: sendAt, arrivesAt: sendAt + configuration.deliveryLatency, sequence: sequence)
        if let faults, faults.hasPushRules {
            enqueue(item, on: device, faults: faults, now: now)
            return
        }
        device.pending.append(item)
        log(now, .queued(deviceID: device.id, notificationID: notification.notificationID, arrivesAt: item.arrivesAt))
    }

    /// When the next notification reaches a device; `nil`: nothing is on its way.
    public var nextDeliveryTime: Milliseconds? {
        var next: Milliseconds?
        for device in devices.values {
            for item in device.pending where next.map({ item.arrivesAt < $0 }) ?? true { next = item.arrivesAt }
        }
        return next
    }

    /// Moves every notification that has arrived by `now` to its device: into
    /// the device's inbox if it is online, else into the push service's
    /// one-per-device store. Returns the deliveries, oldest first.
    ///
    /// A scheduler should call it whenever its clock reaches
    /// ``nextDeliveryTime`` (and before moving past it), so that the event
    /// log stays in time order; deliveries carry their arrival time either way.
    @discardableResult
    public func deliverDue(now: Milliseconds) -> [Delivery] {
        var due: [(arrivesAt: Milliseconds, sequence: UInt64, device: DeviceChannel)] = []
        for device in devices.values {
            for item in device.pending where item.arrivesAt <= now { due.append((item.arrivesAt, item.sequence, device)) }
        }
        guard !due.isEmpty else { return [] }
        due.sort { ($0.arrivesAt, $0.sequence) < ($1.arrivesAt, $1.sequence) }
        var deliveries: [Delivery] = []
        for entry in due {
            let device = entry.device
            guard let index = device.pending.firstIndex(where: { $0.sequence == entry.sequence }) else { continue }
            let item = device.pending.remove(at: index)
            if device.online {
                let delivery = Delivery(
                    deviceID: device.id, user: device.user, notification: item.notification, firstChangeAt: item.firstChangeAt,
                    lastChangeAt: item.lastChangeAt, deliveredAt: entry.arrivesAt)
                device.inbox.append(item.notification)
                device.inboxQueuedAt[item.notification.notificationID] = item.firstChangeAt
                deliveries.append(delivery)
                statistics.deliveries += 1
                log(entry.arrivesAt, .delivered(delivery))
            } else {
                var kept = item
                let replaced = device.held
                if let replaced {
                    kept.notification.coalescedCount += replaced.notification.coalescedCount
                    kept.firstChangeAt = min(kept.firstChangeAt, replaced.firstChangeAt)
                    kept.lastChangeAt = max(kept.lastChangeAt, replaced.lastChangeAt)
                }
                device.held = kept
                statistics.heldWhileOffline += 1
                log(entry.arrivesAt, .heldWhileOffline(
                    deviceID: device.id, notificationID: kept.notification.notificationID,
                    replacedID: replaced?.notification.notificationID, coalescedCount: kept.notification.coalescedCount))
            }
        }
        return deliveries
    }

    /// What is on its way to a device, oldest first, then what the push
    /// service holds for it while it is offline.
    public func pendingNotifications(for deviceID: String, now: Milliseconds) -> [PendingNotification] {
        guard let device = devices[deviceID] else { return [] }
        var result = device.pending.sorted { $0.sequence < $1.sequence }.map { item in
            PendingNotification(
                deviceID: deviceID, notification: item.notification,
                state: now < item.sendAt ? .coalescing(until: item.sendAt) : .inTransit(arrivesAt: item.arrivesAt),
                firstChangeAt: item.firstChangeAt, lastChangeAt: item.lastChangeAt)
        }
        if let held = device.held {
            result.append(PendingNotification(
                deviceID: deviceID, notification: held.notification, state: .heldWhileOffline, firstChangeAt: held.firstChangeAt,
                lastChangeAt: held.lastChangeAt))
        }
        return result
    }

    /// Takes the notifications delivered to a device since it last asked
    /// (the device's side of the push channel), oldest first.
    public func receiveNotifications(for deviceID: String) throws(CloudError) -> [CloudNotification] {
        guard let device = devices[deviceID] else { throw unknownDevice(deviceID) }
        defer {
            device.inbox = []
            device.inboxQueuedAt = [:]
        }
        return device.inbox
    }

    // MARK: Events

    func log(_ time: Milliseconds, _ kind: PushEvent.Kind) {
        events.append(PushEvent(time: time, kind: kind))
        let limit = configuration.eventLogLimit
        if events.count > 2 * limit + 64 {
            let excess = events.count - limit
            events.removeFirst(excess)
            statistics.droppedEvents += excess
        }
    }

    /// Takes the events since the last call, oldest first: at most the
    /// latest `eventLogLimit` (older ones are counted in `droppedEvents`).
    public func drainEvents() -> [PushEvent] {
        defer { events = [] }
        let limit = configuration.eventLogLimit
        if events.count > limit {
            statistics.droppedEvents += events.count - limit
            return Array(events.suffix(limit))
        }
        return events
    }
}
