import SyncCore
import SyncClient
import SyncServer

/// Who and what a simulation starts with.
public struct SimulationSetup: Sendable {
    public struct Device: Sendable, Hashable {
        /// Shown on screen and used in scenario files, e.g. "iPhone".
        public var name: String
        public var user: String
        /// A SQLite file for the device's cache; `nil`: in memory.
        public var storePath: String?
        /// Whether a push makes the device fetch (the default) or is only recorded.
        public var autoFetchOnPush: Bool
        /// How its sync engine retries what failed for a passing reason.
        public var retry: RetryPolicy
        /// The container environment the device's app uses.
        public var environment: ContainerEnvironment

        public init(
            name: String, user: String, storePath: String? = nil, autoFetchOnPush: Bool = true, retry: RetryPolicy = .standard,
            environment: ContainerEnvironment = .development
        ) {
            self.environment = environment
            self.name = name
            self.user = user
            self.storePath = storePath
            self.autoFetchOnPush = autoFetchOnPush
            self.retry = retry
        }
    }

    public var seed: UInt64
    public var server: ServerConfiguration
    public var push: PushConfiguration
    public var container: String
    public var users: [String]
    public var devices: [Device]
    /// How many events the simulation keeps for display (older ones are dropped).
    public var eventLimit: Int
    /// Wraps each device's connection (given the device's name) before its
    /// sync engine and the simulation's actions use it, e.g. to observe every
    /// request and response; `nil`: the connection as is.
    public var connectionWrapper: (@Sendable (any CloudService, _ deviceName: String) -> any CloudService)?
    /// The fault rules in force from the start (`faults:` in a scenario); empty: none.
    public var faults: FaultPlan = FaultPlan()

    public init(
        seed: UInt64 = 1, server: ServerConfiguration? = nil, push: PushConfiguration = PushConfiguration(),
        container: String = "iCloud.com.example.SyncScope", users: [String], devices: [Device], eventLimit: Int = 5_000,
        connectionWrapper: (@Sendable (any CloudService, _ deviceName: String) -> any CloudService)? = nil
    ) {
        self.seed = seed
        self.server = server ?? ServerConfiguration(seed: seed)
        self.push = push
        self.container = container
        self.users = users
        self.devices = devices
        self.eventLimit = eventLimit
        self.connectionWrapper = connectionWrapper
    }
}
