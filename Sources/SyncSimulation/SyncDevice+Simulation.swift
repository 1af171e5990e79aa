import SyncCore
import SyncClient
import SyncServer
import SyncSQLiteStore
import SyncWorlds

extension SyncDevice {
    /// A device of an in-process simulation: connected to `server` and registered for push.
    convenience init(setup: SimulationSetup.Device, server: SimulatedServer, container: String, clock: any SyncClock,
                     wrapper: (@Sendable (any CloudService, String) -> any CloudService)?, seed: UInt64 = 0,
                     onEvent: @escaping (SyncDevice, SyncEvent) -> Void) throws {
        let deviceID = "\(setup.user)-\(setup.name)"
        let service = try server.connect(user: setup.user, deviceID: deviceID, container: container, environment: setup.environment)
        try server.registerDevice(user: setup.user, deviceID: deviceID, container: container, environment: setup.environment)
        let store: any LocalStore = try setup.storePath.map { try SQLiteLocalStore(path: $0) } ?? InMemoryLocalStore()
        self.init(
            name: setup.name, user: setup.user, deviceID: deviceID, environment: setup.environment, connection: wrapper.map { $0(service, setup.name) } ?? service,
            store: store, clock: clock, autoFetchOnPush: setup.autoFetchOnPush,
            configuration: DeviceSyncEngine.Configuration(retry: setup.retry, retrySeed: seed), onEvent: onEvent)
    }
}
