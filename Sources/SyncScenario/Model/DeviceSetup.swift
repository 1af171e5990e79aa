import SyncCore
import SyncClient

/// One device, signed in as one user.
public struct DeviceSetup: Sendable, Equatable {
    /// Where the device keeps its cache of records and tokens.
    public enum Store: String, Sendable, Equatable, CaseIterable {
        /// Lost when the run ends.
        case memory
        /// An SQLite database.
        case sqlite
    }

    public var name: String
    public var user: String
    public var store: Store
    /// Whether the device fetches changes as soon as a push arrives.
    public var autoFetchOnPush: Bool
    /// How its sync engine retries what failed for a passing reason (`retry: naive`).
    public var retry: RetryPolicy = .standard
    /// The container environment its app uses (`environment: production`): a
    /// development build talks to development, a TestFlight or App Store build to production.
    public var environment: ContainerEnvironment = .development

    public init(name: String, user: String, store: Store = .memory, autoFetchOnPush: Bool = true) {
        self.name = name
        self.user = user
        self.store = store
        self.autoFetchOnPush = autoFetchOnPush
    }
}
