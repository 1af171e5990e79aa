import SyncCore

/// A check a scenario makes between steps. A check that does not hold
/// fails the run at the expectation's location.
public enum Expectation: Sendable, Equatable {
    /// What a device has in its local cache.
    case cache(CacheExpectation)
    /// What the most recent fetch (or sync) answered.
    case lastFetch(LastFetchExpectation)
    /// How the latest step that did something (not `say`, not another
    /// check) ended: with this error, or with none.
    case error(ErrorExpectation)
    /// Which notifications a device received.
    case notifications(NotificationsExpectation)
    /// Whether a device caches a change token.
    case tokens(TokenExpectation)
    /// What the most recent `send` (or `sync`) sent, and which saves conflicted.
    case lastSend(LastSendExpectation)
    /// The local changes a device has queued and not yet sent.
    case pending(PendingExpectation)
    /// The subscriptions a user has in one database on the server.
    case subscriptions(SubscriptionsExpectation)
    /// The retries a device's sync engine made, and how long it waited (see `FaultSetup.swift`).
    case retries(RetriesExpectation)

    /// The name the file uses for this check.
    public var name: String {
        switch self {
        case .cache: "cache"
        case .lastFetch: "lastFetch"
        case .error: "error"
        case .notifications: "notifications"
        case .tokens: "tokens"
        case .lastSend: "lastSend"
        case .pending: "pending"
        case .subscriptions: "subscriptions"
        case .retries: "retries"
        }
    }
}
