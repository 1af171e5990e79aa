import Foundation
import SyncCore
import SyncServer

/// What a device action came to.
public enum ActionOutcome: Sendable, Hashable {
    case done(String)
    case failed(CloudError)

    public var error: CloudError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

/// A notification as a device received it.
public struct ReceivedNotification: Sendable, Hashable {
    public var notification: CloudNotification
    public var deliveredAt: Milliseconds
    /// From the first change it stands for to its delivery.
    public var latency: Milliseconds
    /// The fetch run it triggered (filled in when the run starts).
    public var fetchRunID: Int?
}

/// One simulated device: a user's connection to the server, a local cache
/// and a sync engine.
public final class SimulatedDevice {
    public let name: String
    public let user: String
    /// The push token / device ID the server knows it by.
    public let deviceID: String
    /// The in-process connection, unwrapped.
    public let service: InProcessCloudService
    /// The connection the device's sync engine and the simulation's actions
    /// use: ``service`` passed through `SimulationSetup.connectionWrapper`.
    public let connection: any CloudService
    public let store: any LocalStore
    public private(set) var engine: DeviceSyncEngine!
    public private(set) var isOnline = true
    /// Every token it received, oldest first.
    public private(set) var tokenHistory: [TokenReceipt] = []
    /// Every notification it received, oldest first.
    public private(set) var notifications: [ReceivedNotification] = []
    /// The most recent error an action or a sync step ran into.
    public private(set) var lastError: CloudError?

    init(setup: SimulationSetup.Device, server: SimulatedServer, container: String, clock: any SyncClock,
         wrapper: (@Sendable (any CloudService, String) -> any CloudService)?,
         onEvent: @escaping (SimulatedDevice, SyncEvent) -> Void) throws {
        name = setup.name
        user = setup.user
        deviceID = "\(setup.user)-\(setup.name)"
        let service = try server.connect(user: setup.user, deviceID: deviceID, container: container)
        self.service = service
        connection = wrapper.map { $0(service, setup.name) } ?? service
        try server.registerDevice(user: setup.user, deviceID: deviceID, container: container)
        store = try setup.storePath.map { try SQLiteLocalStore(path: $0) } ?? InMemoryLocalStore()
        engine = DeviceSyncEngine(service: connection, store: store, clock: clock) { [unowned self] event in
            self.record(event)
            onEvent(self, event)
        }
        engine.autoFetchOnPush = setup.autoFetchOnPush
    }

    private func record(_ event: SyncEvent) {
        switch event {
        case .tokenReceived(let receipt):
            tokenHistory.append(receipt)
        case .fetchRunStarted(let run):
            for i in notifications.indices where notifications[i].fetchRunID == nil
                && run.triggeredBy.contains(notifications[i].notification.notificationID) {
                notifications[i].fetchRunID = run.id
            }
        case .error(let report):
            lastError = CloudError(report.code ?? .internalError, report.message, zoneID: report.zoneID)
        default:
            break
        }
    }

    func received(_ notification: CloudNotification, delivery: Delivery?) {
        notifications.append(ReceivedNotification(
            notification: notification, deliveredAt: delivery?.deliveredAt ?? 0, latency: delivery?.latency ?? 0, fetchRunID: nil))
        engine.notificationReceived(notification)
    }

    func setOnlineFlag(_ online: Bool) { isOnline = online }

    func noteFailure(_ error: CloudError) { lastError = error }

    // MARK: Reading

    /// The device's cached records of a zone, sorted by name.
    public func cachedRecords(in zoneID: RecordZoneID) -> [Record] {
        ((try? engine.records(in: zoneID)) ?? []).sorted { $0.recordID.recordName < $1.recordID.recordName }
    }

    /// The device's cached zone token, if any.
    public func cachedZoneToken(for zoneID: RecordZoneID) -> ServerChangeToken? {
        try? store.zoneToken(for: zoneID, in: engine.scope(of: zoneID))
    }

    /// The device's cached database token, if any.
    public func cachedDatabaseToken(for scope: DatabaseScope) -> ServerChangeToken? {
        try? store.databaseToken(for: scope)
    }

    /// Zones this device knows about.
    public func knownZones() -> [RecordZoneID] {
        let zones = [DatabaseScope.private, .shared].flatMap { scope in ((try? store.knownZones(in: scope)) ?? []).map(\.zoneID) }
        return Array(Set(zones)).sorted()
    }

    public var pendingChangeCount: Int { (try? engine.pendingChanges().count) ?? 0 }
}
