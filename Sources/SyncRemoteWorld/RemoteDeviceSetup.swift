import Foundation
import Synchronization
import SyncCore
import SyncClient
import SyncNetwork
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SyncSQLiteStore
import SyncWorlds

/// Who a device on a real server is, where it keeps its cache, and how it behaves.
public struct RemoteDeviceSetup: Sendable {
    /// The `syncscope serve` address, e.g. http://127.0.0.1:8400.
    public var serverURL: URL
    /// The user's web auth token (`syncscope serve` prints it and writes it to users.json).
    public var webAuthToken: String
    public var user: String
    /// Shown on screen, e.g. "iPhone".
    public var name: String
    /// The device's folder: its SQLite cache (records, pending changes, change
    /// tokens) and its identity (the device ID the server knows it by). A
    /// device started again on the same folder resumes from its cached tokens.
    /// `nil`: a cache in memory and a new device ID, gone when it stops.
    public var dataDirectory: URL?
    public var container: String
    public var environment: ContainerEnvironment
    /// Whether a push makes the device fetch (the default) or is only recorded.
    public var autoFetchOnPush: Bool
    /// Whether to save database subscriptions for the private and shared
    /// databases (as `CKSyncEngine` does), so that changes made elsewhere push this device.
    public var subscribeToDatabases: Bool
    /// Forget the cache (records, pending changes, tokens) before starting; the device ID stays.
    public var freshCache: Bool
    /// How long each long-poll of the webcourier URL waits, in seconds.
    public var pollTimeout: Double
    public var eventLimit: Int
    /// Wraps the device's connection before its engine and the world's actions use it.
    public var connectionWrapper: (@Sendable (any CloudService, _ deviceName: String) -> any CloudService)?
    public var session: URLSession

    public init(
        serverURL: URL, webAuthToken: String, user: String, name: String, dataDirectory: URL? = nil,
        container: String = "iCloud.com.example.SyncScope", environment: ContainerEnvironment = .development,
        autoFetchOnPush: Bool = true, subscribeToDatabases: Bool = true, freshCache: Bool = false, pollTimeout: Double = 25,
        eventLimit: Int = 5_000, connectionWrapper: (@Sendable (any CloudService, _ deviceName: String) -> any CloudService)? = nil,
        session: URLSession = HTTPCloudService.sharedSession
    ) {
        self.serverURL = serverURL
        self.webAuthToken = webAuthToken
        self.user = user
        self.name = name
        self.dataDirectory = dataDirectory
        self.container = container
        self.environment = environment
        self.autoFetchOnPush = autoFetchOnPush
        self.subscribeToDatabases = subscribeToDatabases
        self.freshCache = freshCache
        self.pollTimeout = pollTimeout
        self.eventLimit = eventLimit
        self.connectionWrapper = connectionWrapper
        self.session = session
    }

    /// The IDs of the subscriptions ``subscribeToDatabases`` saves.
    public static let privateSubscriptionID = "syncscope-private-changes"
    public static let sharedSubscriptionID = "syncscope-shared-changes"
}
