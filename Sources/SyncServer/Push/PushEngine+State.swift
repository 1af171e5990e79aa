import SyncCore
import SyncWire

/// The push layer's part of a ``ServerStateFile``: subscriptions, and for
/// checkpoints also the devices and what is waiting for them.
public struct PushStateFile: Codable, Sendable, Hashable {
    public struct SubscriptionEntry: Codable, Sendable, Hashable {
        public var container: String
        public var environment: ContainerEnvironment
        public var database: DatabaseScope
        public var user: String
        public var subscription: WireSubscription
    }

    public struct DeviceContainer: Codable, Sendable, Hashable {
        public var container: String
        public var environment: ContainerEnvironment
    }

    public struct Pending: Codable, Sendable, Hashable {
        public var notification: WireNotification
        public var container: String
        public var environment: ContainerEnvironment
        public var database: DatabaseScope
        public var user: String
        public var subscriptionID: String
        /// `zone`, `record` or `id`.
        public var collapseKind: String
        public var collapseZoneID: WireZoneID?
        public var collapseRecordName: String?
        public var collapseID: String?
        public var firstChangeAt: Milliseconds
        public var lastChangeAt: Milliseconds
        public var sendAt: Milliseconds
        public var arrivesAt: Milliseconds
        public var sequence: UInt64
    }

    public struct Device: Codable, Sendable, Hashable {
        public var deviceID: String
        public var user: String
        public var containers: [DeviceContainer]
        public var online: Bool
        public var pending: [Pending]
        public var held: Pending?
        public var inbox: [WireNotification]
        /// When the server queued each of `inbox` (same order); absent in older checkpoints.
        public var inboxQueuedAt: [Milliseconds?]?
    }

    public var randomSeed: String?
    public var sequence: UInt64?
    public var subscriptions: [SubscriptionEntry]
    /// Checkpoints only.
    public var devices: [Device]?
}

extension PushEngine {
    // MARK: Export and import

    /// The subscriptions (and, with `includingDevices`, the devices and their
    /// waiting notifications) as a state file part. With `reseeding`, the
    /// push layer's random choices restart from a seed written into the file.
    public func exportState(includingDevices: Bool, reseeding: Bool) -> PushStateFile {
        var seed: UInt64?
        if reseeding {
            let next = random.next()
            random = SeededRandom(seed: next)
            seed = next
        }
        var subscriptions: [PushStateFile.SubscriptionEntry] = []
        for owner in store.byOwner.keys.sorted() {
            for subscription in store.subscriptions(of: owner) {
                subscriptions.append(PushStateFile.SubscriptionEntry(
                    container: owner.container, environment: owner.environment, database: owner.scope, user: owner.user,
                    subscription: WireSubscription(subscription)))
            }
        }
        var devices: [PushStateFile.Device]?
        if includingDevices {
            devices = self.devices.keys.sorted().compactMap { id in
                guard let device = self.devices[id] else { return nil }
                return PushStateFile.Device(
                    deviceID: id, user: device.user,
                    containers: device.containers.sorted { ($0.container, $0.environment.rawValue) < ($1.container, $1.environment.rawValue) }
                        .map { PushStateFile.DeviceContainer(container: $0.container, environment: $0.environment) },
                    online: device.online, pending: device.pending.sorted { $0.sequence < $1.sequence }.map(Self.pendingFile),
                    held: device.held.map(Self.pendingFile), inbox: device.inbox.map(WireNotification.init),
                    inboxQueuedAt: device.inbox.map { device.inboxQueuedAt[$0.notificationID] })
            }
        }
        return PushStateFile(
            randomSeed: seed.map(Hex.string), sequence: includingDevices ? sequence : nil, subscriptions: subscriptions, devices: devices)
    }

    private static func pendingFile(_ item: PendingItem) -> PushStateFile.Pending {
        var kind = "zone"
        var zone: WireZoneID?
        var recordName: String?
        var id: String?
        switch item.collapseKey {
        case .zone(let z): zone = WireZoneID(z)
        case .record(let r):
            kind = "record"
            zone = WireZoneID(r.zoneID)
            recordName = r.recordName
        case .id(let i):
            kind = "id"
            id = i
        }
        let owner = item.subscription.owner
        return PushStateFile.Pending(
            notification: WireNotification(item.notification), container: owner.container, environment: owner.environment,
            database: owner.scope, user: owner.user, subscriptionID: item.subscription.subscriptionID, collapseKind: kind,
            collapseZoneID: zone, collapseRecordName: recordName, collapseID: id, firstChangeAt: item.firstChangeAt,
            lastChangeAt: item.lastChangeAt, sendAt: item.sendAt, arrivesAt: item.arrivesAt, sequence: item.sequence)
    }

    /// Replaces the subscriptions with a state file's. With `keepingDevices`
    /// (a checkpoint) devices and waiting notifications are restored too, and
    /// the random seed must be there; otherwise (`admin/import`) the devices
    /// stay registered and lose what was waiting for them. Checks everything
    /// first: on an error nothing changes.
    public func importState(_ file: PushStateFile?, restoringDevices: Bool) throws(CloudError) {
        var newStore = SubscriptionStore()
        for entry in file?.subscriptions ?? [] {
            let owner = SubscriptionOwner(container: entry.container, environment: entry.environment, scope: entry.database, user: entry.user)
            do {
                let subscription = try SubscriptionStore.validated(try Subscription(entry.subscription), owner: owner)
                newStore.save(subscription, owner: owner)
            } catch {
                throw StateFileError.invalid("subscription '\(entry.subscription.subscriptionID)' of \(entry.user): \(error.reason)")
            }
        }
        guard restoringDevices else {
            store = newStore
            for device in devices.values {
                device.pending = []
                device.held = nil
                device.inbox = []
                device.inboxQueuedAt = [:]
            }
            return
        }
        guard let file, let seedText = file.randomSeed else {
            throw StateFileError.invalid("a checkpoint's push state needs its 'randomSeed'")
        }
        let seed = try Hex.value(seedText, "push randomSeed")
        var newDevices: [String: DeviceChannel] = [:]
        var newByUser: [String: Set<String>] = [:]
        for file in file.devices ?? [] {
            guard newDevices[file.deviceID] == nil else { throw StateFileError.invalid("device '\(file.deviceID)' appears twice") }
            let device = DeviceChannel(id: file.deviceID, user: file.user)
            device.containers = Set(file.containers.map { PushContainer(container: $0.container, environment: $0.environment) })
            device.online = file.online
            for pending in file.pending { device.pending.append(try Self.pendingItem(pending)) }
            if let held = file.held { device.held = try Self.pendingItem(held) }
            for (index, wire) in file.inbox.enumerated() {
                let notification: CloudNotification
                do { notification = try CloudNotification(wire) } catch { throw StateFileError.invalid(error.reason) }
                device.inbox.append(notification)
                if let times = file.inboxQueuedAt, index < times.count, let time = times[index] {
                    device.inboxQueuedAt[notification.notificationID] = time
                }
            }
            newDevices[file.deviceID] = device
            newByUser[file.user, default: []].insert(file.deviceID)
        }
        store = newStore
        devices = newDevices
        devicesByUser = newByUser
        sequence = file.sequence ?? 0
        random = SeededRandom(seed: seed)
    }

    private static func pendingItem(_ file: PushStateFile.Pending) throws(CloudError) -> PendingItem {
        let notification: CloudNotification
        do { notification = try CloudNotification(file.notification) } catch { throw StateFileError.invalid(error.reason) }
        let key: CollapseKey
        switch (file.collapseKind, file.collapseZoneID, file.collapseRecordName, file.collapseID) {
        case ("zone", let zone?, _, _): key = .zone(RecordZoneID(zone))
        case ("record", let zone?, let name?, _): key = .record(RecordID(recordName: name, zoneID: RecordZoneID(zone)))
        case ("id", _, _, let id?): key = .id(id)
        default: throw StateFileError.invalid("a waiting notification has collapse key '\(file.collapseKind)' without its parts")
        }
        let owner = SubscriptionOwner(container: file.container, environment: file.environment, scope: file.database, user: file.user)
        return PendingItem(
            notification: notification, subscription: SubscriptionKey(owner: owner, subscriptionID: file.subscriptionID), collapseKey: key,
            firstChangeAt: file.firstChangeAt, lastChangeAt: file.lastChangeAt, sendAt: file.sendAt, arrivesAt: file.arrivesAt,
            sequence: file.sequence)
    }

    /// Forgets every subscription and waiting notification; devices stay registered.
    public func resetState() {
        store = SubscriptionStore()
        for device in devices.values {
            device.pending = []
            device.held = nil
            device.inbox = []
            device.inboxQueuedAt = [:]
        }
    }
}
