import Foundation
import SyncCore
import SyncWire

/// What the inspector reads about the server, whatever the server is: the
/// in-process simulated server (`InProcessServerObserver` in SyncSimulation,
/// which sees its inside) or a `syncscope serve` over HTTP (`HTTPServerObserver` in SyncRemoteWorld, which
/// sees only what the API answers).
///
/// Questions about a token (is it usable, what would a fetch from it return,
/// how far behind is it) are answered, not thrown: a refused token is an
/// answer. What is thrown is a `CloudError` for not being able to ask at
/// all: the server cannot be reached, or does not accept the credentials.
public protocol ServerObserver: Sendable {
    /// Where the answers come from, for a status line ("in-process server", or the server's address).
    var source: String { get }
    /// Whether the observer sees the server's inside: sequence numbers, what
    /// a token stands for, notifications on their way to devices. Over HTTP it does not.
    var seesServerInternals: Bool { get }

    /// The zones `user` sees in the private and shared databases of
    /// `environment`, the private default zone included, sorted by scope
    /// (private first) and zone.
    ///
    /// Every question about what the server holds names the environment, as
    /// CloudKit's databases do: development and production hold separate data,
    /// and each device reads the one its app uses (``SyncDevice/environment``).
    func zoneSummaries(user: String, environment: ContainerEnvironment) async throws -> [ServerZoneSummary]
    /// Private zones of `user` in `environment` that were deleted, purged or reset, until created again, sorted by zone.
    func removedZones(user: String, environment: ContainerEnvironment) async throws -> [ServerRemovedZone]
    /// The public database's default zone in `environment`.
    func publicZoneSummary(environment: ContainerEnvironment) async throws -> ServerZoneSummary
    /// How many changes a fetch from `token` would bring now in `zoneID`
    /// (records changed since, plus deletions since), or `nil` when the token
    /// cannot be used (see ``validate(_:zoneID:scope:user:environment:)`` for why).
    func pendingChangeCount(
        since token: ServerChangeToken, zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Int?
    /// The live records of a zone as the server has them, sorted by name
    /// (empty when the zone is gone or cannot be read).
    func records(in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment) async throws -> [Record]
    /// `nil` if a fetch from `token` would work now, otherwise the error it would get.
    /// `zoneID` `nil`: a database token.
    func validate(
        _ token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> CloudError?
    /// The first batch (at most `resultsLimit` changes) a fetch from `token`
    /// would return now, or the error it would get. `zoneID` `nil`: a database token.
    func rewind(
        from token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment,
        resultsLimit: Int
    ) async throws -> Result<TokenRewind, CloudError>
    /// What a token stands for, in words (over HTTP a token is opaque: only its short form).
    func describe(_ token: ServerChangeToken) async -> String
    /// Notifications on their way to a device, or held for it (none known over HTTP).
    func pendingNotifications(forDevice deviceID: String) async -> [PendingNotification]
    /// Whether a database fetch from `token` would bring anything now (true
    /// when the token cannot be used: the fetch then starts over).
    func databaseChanged(
        since token: ServerChangeToken, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Bool
    /// The change a token stands through ("through change 41"), when the
    /// observer can read tokens (in process); `nil` over HTTP, where a token is opaque.
    func position(of token: ServerChangeToken) async -> Int64?
    /// The fault rules in force, one line each ("#1 …"); none known over HTTP.
    func faultRules() async -> [String]
    /// What injected push faults did lately to a device's notifications (none known over HTTP).
    func pushFaultMarks(forDevice deviceID: String) async -> [PushFaultMark]
    /// The container's schema in one environment; `nil` when the observer
    /// cannot read it (over HTTP, where schemas take the server admin token).
    func schema(in environment: ContainerEnvironment) async -> ContainerSchema?

    /// Whether the observer reads the server's event feed and every user's
    /// data (a `syncscope serve` watched with its admin token): the
    /// inspector then lists the server's clients instead of its own devices.
    var readsEventFeed: Bool { get }
    /// The environment whose feed and data the observer watches (when it
    /// ``readsEventFeed``): every user's data is read in it.
    var watchedEnvironment: ContainerEnvironment { get }
    /// Every user of the server, by name; empty when the observer cannot list them.
    func userNames() async throws -> [String]
    /// The feed's events after `after`, waiting up to `timeout` seconds for
    /// one when there are none yet; `nil` when the observer reads no feed.
    func eventFeed(after: UInt64, timeout: Double) async throws -> WireServerEvents?
    /// Gives one of the server's clients a new short name (when the observer
    /// ``readsEventFeed``); answers the clients as they are now.
    func renameClient(_ key: String, to name: String) async throws -> [WireClient]
}

extension ServerObserver {
    public func position(of token: ServerChangeToken) async -> Int64? { nil }
    public func faultRules() async -> [String] { [] }
    public func pushFaultMarks(forDevice deviceID: String) async -> [PushFaultMark] { [] }
    public func schema(in environment: ContainerEnvironment) async -> ContainerSchema? { nil }
    public var readsEventFeed: Bool { false }
    public var watchedEnvironment: ContainerEnvironment { .development }
    public func userNames() async throws -> [String] { [] }
    public func eventFeed(after: UInt64, timeout: Double) async throws -> WireServerEvents? { nil }
    public func renameClient(_ key: String, to name: String) async throws -> [WireClient] { throw namesNoClients }

    /// What a rename answers where the observer reads no event feed.
    public var namesNoClients: CloudError {
        CloudError(.invalidArguments, "\(source) names no clients: only a server watched with its admin token does.")
    }
}

// MARK: - One device's view, in one go

extension ServerObserver {
    /// Reads what the server holds for `device`'s user in the device's
    /// environment, and how each of the device's cached zone tokens stands.
    public func snapshot(of device: SyncDevice) async throws -> ServerSnapshot {
        let (user, environment) = (device.user, device.environment)
        let zones = try await zoneSummaries(user: user, environment: environment)
        var tokens: [RecordZoneID: ZoneTokenState] = [:]
        for zone in zones where !zone.zoneID.isDefaultZone {
            guard let token = device.cachedZoneToken(for: zone.zoneID) else { continue }
            if let pending = try await pendingChangeCount(
                since: token, zoneID: zone.zoneID, scope: zone.scope, user: user, environment: environment) {
                tokens[zone.zoneID] = .behind(pending)
            } else {
                let problem = try await validate(token, zoneID: zone.zoneID, scope: zone.scope, user: user, environment: environment)
                tokens[zone.zoneID] = .refused(problem ?? CloudError(.invalidArguments, "The server does not accept this token."))
            }
        }
        return ServerSnapshot(
            user: user, zones: zones, removedZones: try await removedZones(user: user, environment: environment),
            publicZone: try? await publicZoneSummary(environment: environment),
            zoneTokens: tokens, pendingNotifications: await pendingNotifications(forDevice: device.deviceID))
    }
}
