import Foundation
import SyncCore
import SyncClient

/// One device: a user's connection to a server, a local cache and a sync
/// engine. The connection is any `CloudService`: the in-process simulated
/// server (in a `Simulation`, in SyncSimulation) or a real one over HTTP (in a `RemoteWorld`, in SyncRemoteWorld).
public final class SyncDevice {
    public let name: String
    public let user: String
    /// The push token / device ID the server knows it by.
    public let deviceID: String
    /// The container environment its app talks to (Xcode builds development,
    /// TestFlight and App Store builds production): the inspector reads this
    /// environment's zones and records for it.
    public let environment: ContainerEnvironment
    /// The connection the device's sync engine and the world's actions use
    /// (passed through `SimulationSetup.connectionWrapper` when one is set).
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

    /// A device over any connection.
    /// - Parameters:
    ///   - environment: the environment `connection` talks to.
    ///   - connection: what its engine talks to (already wrapped, if it is to be observed).
    ///   - onEvent: called with each of the engine's events, after the device recorded it.
    public convenience init(
        name: String, user: String, deviceID: String, environment: ContainerEnvironment, connection: any CloudService, store: any LocalStore,
        clock: any SyncClock, autoFetchOnPush: Bool = true, onEvent: @escaping (SyncDevice, SyncEvent) -> Void = { _, _ in }
    ) {
        self.init(
            name: name, user: user, deviceID: deviceID, environment: environment, connection: connection, store: store, clock: clock,
            autoFetchOnPush: autoFetchOnPush, configuration: DeviceSyncEngine.Configuration(), onEvent: onEvent)
    }

    package init(
        name: String, user: String, deviceID: String, environment: ContainerEnvironment, connection: any CloudService,
        store: any LocalStore, clock: any SyncClock, autoFetchOnPush: Bool,
        configuration: DeviceSyncEngine.Configuration = DeviceSyncEngine.Configuration(),
        onEvent: @escaping (SyncDevice, SyncEvent) -> Void
    ) {
        self.name = name
        self.user = user
        self.deviceID = deviceID
        self.environment = environment
        self.connection = connection
        self.store = store
        engine = DeviceSyncEngine(service: connection, store: store, clock: clock, configuration: configuration) { [unowned self] event in
            self.record(event)
            onEvent(self, event)
        }
        engine.autoFetchOnPush = autoFetchOnPush
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

    /// A notification reached the device: it records it and tells its engine
    /// (which schedules a fetch; the world runs it).
    package func received(_ notification: CloudNotification, deliveredAt: Milliseconds, latency: Milliseconds?) {
        notifications.append(ReceivedNotification(
            notification: notification, deliveredAt: deliveredAt, latency: latency ?? 0, latencyIsKnown: latency != nil, fetchRunID: nil))
        engine.notificationReceived(notification)
    }

    func setOnlineFlag(_ online: Bool) { isOnline = online }

    package func noteFailure(_ error: CloudError) { lastError = error }

    // MARK: Reading

    /// The device's cached records of a zone, sorted by name.
    public func cachedRecords(in zoneID: RecordZoneID) -> [Record] {
        ((try? engine.records(in: zoneID)) ?? []).sorted { $0.recordID.recordName < $1.recordID.recordName }
    }

    /// How many records the device caches for a zone (the length of ``cachedRecords(in:)``).
    public func cachedRecordCount(in zoneID: RecordZoneID) -> Int {
        (try? engine.recordCount(in: zoneID)) ?? 0
    }

    /// The cached record at `offset` in ``cachedRecords(in:)``'s order, without listing the zone.
    public func cachedRecord(atOffset offset: Int, in zoneID: RecordZoneID) -> Record? {
        (try? engine.record(atOffset: offset, in: zoneID)) ?? nil
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
