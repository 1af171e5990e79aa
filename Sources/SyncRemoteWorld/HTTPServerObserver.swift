import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncWire
import SyncWorlds

/// Reads a `syncscope serve` through its public HTTP API, as the users it
/// has connections for, each in its connection's environment: what a client
/// could learn, nothing more.
///
/// - Zone summaries: `zones/list` (each zone's current token) and, for record
///   counts and the server's records, a mirror of each custom zone kept up to
///   date with `changes/zone` from the mirror's own token (the first time from
///   no token). The default and public zones have no change fetching: their
///   counts are unknown (`nil`).
/// - Pending counts, token checks and rewinds: `changes/zone` or
///   `changes/database` from the token in question (only counting, no fields).
/// - Removed zones: `changes/database` of the private database from the
///   observer's own token, taken by ``beginWatching(user:environment:)``: zones removed
///   since then, with their reasons (the in-process observer knows every one).
/// - Shares: a zone whose mirror holds share records (`cloudkit.share`)
///   gets them looked up (`records/lookup`) at each summary, for their
///   participants and URL (an acceptance changes them without changing the record).
/// - Tokens are opaque and notifications on their way are invisible.
///
/// The connections should carry no device ID, so that the observer's
/// questions are not taken for a device's traffic.
public final class HTTPServerObserver: ServerObserver {
    /// Whose view: a user in one environment (its connection's).
    public struct Viewer: Hashable, Sendable {
        public var user: String
        public var environment: ContainerEnvironment

        public init(user: String, environment: ContainerEnvironment) {
            self.user = user
            self.environment = environment
        }
    }

    public let connections: [Viewer: HTTPCloudService]

    private struct MirrorKey: Hashable {
        var viewer: Viewer
        var scope: DatabaseScope
        var zoneID: RecordZoneID
    }

    private struct Mirror {
        var token: ServerChangeToken
        var records: [String: Record]
        /// The names of the zone's share records (`cloudkit.share`), kept as changes come.
        var shareNames: Set<String> = []
    }

    private struct State {
        var mirrors: [MirrorKey: Mirror] = [:]
        var databaseTokens: [Viewer: ServerChangeToken] = [:]
        var removed: [Viewer: [RecordZoneID: ZoneDeletionReason]] = [:]
    }

    private let state = Mutex(State())
    /// With the server admin token: the event feed, and every user's databases
    /// read as that user (`X-SyncScope-Read-As`), all marked as an inspector's.
    public let feed: EventFeedReader?

    /// - Parameter connections: one per user and environment the observer may be asked about.
    public init(connections: [HTTPCloudService]) {
        var byViewer: [Viewer: HTTPCloudService] = [:]
        for connection in connections {
            byViewer[Viewer(user: connection.userRecordName, environment: connection.environment)] = connection
        }
        self.connections = byViewer
        feed = nil
    }

    /// Watches a whole server with its admin token: every user, the event feed.
    public init(watching feed: EventFeedReader) {
        connections = [:]
        self.feed = feed
    }

    public var source: String {
        feed?.baseURL.absoluteString ?? connections.values.first.map { $0.baseURL.absoluteString } ?? "an HTTP server"
    }

    public var seesServerInternals: Bool { false }

    public var readsEventFeed: Bool { feed != nil }

    public var watchedEnvironment: ContainerEnvironment { feed?.environment ?? .development }

    public func userNames() async throws -> [String] {
        guard let feed else { return Set(connections.keys.map(\.user)).sorted() }
        return try await feed.userNames()
    }

    public func eventFeed(after: UInt64, timeout: Double) async throws -> WireServerEvents? {
        try await feed?.events(after: after, timeout: timeout)
    }

    public func renameClient(_ key: String, to name: String) async throws -> [WireClient] {
        guard let feed else { throw namesNoClients }
        return try await feed.renameClient(key, to: name)
    }

    private func connection(for viewer: Viewer) throws(CloudError) -> HTTPCloudService {
        if let feed { return connections[viewer] ?? feed.connection(readingAs: viewer.user, environment: viewer.environment) }
        guard let connection = connections[viewer] else {
            let known = connections.keys.map { "\($0.user) in \($0.environment.rawValue)" }.sorted().joined(separator: ", ")
            throw CloudError(
                .notAuthenticated,
                "Over HTTP the observer sees only the users it signed in as (\(known.isEmpty ? "none" : known)), "
                    + "not '\(viewer.user)' in \(viewer.environment.rawValue).")
        }
        return connection
    }

    /// Errors that mean "could not ask", thrown rather than answered.
    static func isTransport(_ error: CloudError) -> Bool {
        [.networkFailure, .notAuthenticated, .authenticationFailed].contains(error.code)
    }

    /// Runs a call; a ``CloudError`` that is an answer comes back as `.failure`,
    /// one that means the server could not be asked is thrown.
    private func answer<T>(_ body: () async throws -> T) async throws -> Result<T, CloudError> {
        do {
            return .success(try await body())
        } catch let error as CloudError {
            if Self.isTransport(error) { throw error }
            return .failure(error)
        }
    }

    // MARK: Zones

    public func zoneSummaries(user: String, environment: ContainerEnvironment) async throws -> [ServerZoneSummary] {
        let viewer = Viewer(user: user, environment: environment)
        let service = try connection(for: viewer)
        var summaries: [ServerZoneSummary] = []
        var listed = Set<MirrorKey>()
        for scope in [DatabaseScope.private, .shared] {
            let zones = try await service.listRecordZones(in: scope).sorted { $0.zoneID < $1.zoneID }
            for zone in zones {
                guard !zone.zoneID.isDefaultZone else {
                    summaries.append(ServerZoneSummary(scope: scope, zoneID: zone.zoneID, recordCount: nil, lastSequence: nil, currentToken: nil))
                    continue
                }
                let key = MirrorKey(viewer: viewer, scope: scope, zoneID: zone.zoneID)
                listed.insert(key)
                let mirror = try? await refreshedMirror(key, service: service).get()
                summaries.append(ServerZoneSummary(
                    scope: scope, zoneID: zone.zoneID, recordCount: mirror?.records.count, lastSequence: nil, currentToken: zone.syncToken,
                    shares: await shares(in: zone.zoneID, scope: scope, names: mirror?.shareNames ?? [], service: service)))
            }
        }
        state.withLock { state in
            for key in state.mirrors.keys where key.viewer == viewer && !listed.contains(key) { state.mirrors[key] = nil }
        }
        return summaries
    }

    /// The zone's shares with their participants: a `records/lookup` of its
    /// share records (their share keys change without the record changing,
    /// when someone accepts), only for a zone that has any.
    private func shares(in zoneID: RecordZoneID, scope: DatabaseScope, names: Set<String>, service: HTTPCloudService) async -> [ServerShare] {
        guard !names.isEmpty,
              let records = try? await service.lookupShareRecords(in: scope, zoneID: zoneID, recordNames: names.sorted())
        else { return [] }
        return records.compactMap { ServerShare($0, zoneOwner: zoneID.ownerName) }
    }

    public func publicZoneSummary(environment: ContainerEnvironment) async throws -> ServerZoneSummary {
        var first = connections.keys.filter({ $0.environment == environment }).map(\.user).min()
            .flatMap({ connections[Viewer(user: $0, environment: environment)] })
        if first == nil, let feed, let user = try await feed.userNames().first { first = feed.connection(readingAs: user, environment: environment) }
        guard let service = first else {
            throw CloudError(.notAuthenticated, "The observer has no connection to the server's \(environment.rawValue) environment.")
        }
        let zoneID = try await service.listRecordZones(in: .public).first?.zoneID
            ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: RecordZoneID.publicOwnerName)
        return ServerZoneSummary(scope: .public, zoneID: zoneID, recordCount: nil, lastSequence: nil, currentToken: nil)
    }

    /// Takes the observer's own private-database token for `user` in
    /// `environment`, so that ``removedZones(user:environment:)`` reports zones removed from now on.
    public func beginWatching(user: String, environment: ContainerEnvironment) async throws {
        let viewer = Viewer(user: user, environment: environment)
        let service = try connection(for: viewer)
        var token: ServerChangeToken?
        repeat {
            let batch = try await service.fetchDatabaseChanges(in: .private, since: token, resultsLimit: nil)
            token = batch.serverChangeToken
            if !batch.moreComing { break }
        } while true
        let start = token
        state.withLock { state in
            state.databaseTokens[viewer] = start
            state.removed[viewer] = [:]
        }
    }

    public func removedZones(user: String, environment: ContainerEnvironment) async throws -> [ServerRemovedZone] {
        let viewer = Viewer(user: user, environment: environment)
        let service = try connection(for: viewer)
        guard var token = state.withLock({ $0.databaseTokens[viewer] }) else {
            try await beginWatching(user: user, environment: environment)
            return []
        }
        var removed = state.withLock { $0.removed[viewer] ?? [:] }
        while true {
            let batch: DatabaseChangesBatch
            switch try await answer({ try await service.fetchDatabaseChanges(in: .private, since: token, resultsLimit: nil) }) {
            case .success(let answer):
                batch = answer
            case .failure(let error) where error.code == .changeTokenExpired:
                // The server's history was replaced (import, reset): watch again from now.
                try await beginWatching(user: user, environment: environment)
                return []
            case .failure(let error):
                throw error
            }
            for change in batch.changes {
                switch change {
                case .zoneChanged(let zoneID): removed[zoneID] = nil
                case .zoneRemoved(let zoneID, let reason): removed[zoneID] = reason
                }
            }
            token = batch.serverChangeToken
            if !batch.moreComing { break }
        }
        let (finalToken, finalRemoved) = (token, removed)
        state.withLock { state in
            state.databaseTokens[viewer] = finalToken
            state.removed[viewer] = finalRemoved
        }
        return removed.sorted { $0.key < $1.key }.map { ServerRemovedZone(scope: .private, zoneID: $0.key, reason: $0.value) }
    }

    // MARK: Records

    /// The zone's mirror brought up to date: from its token, or from no token
    /// the first time (and after the token expired). A zone that cannot be
    /// read (gone, default zone…) is a `.failure`.
    private func refreshedMirror(_ key: MirrorKey, service: HTTPCloudService) async throws -> Result<Mirror, CloudError> {
        var mirror = state.withLock { $0.mirrors[key] }
        var startedOver = false
        while true {
            let request = ZoneChangesRequest(zoneID: key.zoneID, previousServerChangeToken: mirror?.token)
            let result = try await answer { () async throws -> ZoneChangesBatch in
                let results = try await service.fetchRecordZoneChanges(in: key.scope, [request])
                guard let first = results.first else {
                    throw CloudError(.internalError, "The server answered changes/zone without a result for zone \(key.zoneID.zoneName).")
                }
                return try first.get()
            }
            switch result {
            case .success(let batch):
                var next = mirror ?? Mirror(token: batch.serverChangeToken, records: [:])
                for change in batch.changes {
                    switch change {
                    case .changed(let record):
                        next.records[record.recordID.recordName] = record
                        if record.recordType == ServerShare.recordType { next.shareNames.insert(record.recordID.recordName) }
                    case .deleted(let id, _):
                        next.records[id.recordName] = nil
                        next.shareNames.remove(id.recordName)
                    }
                }
                next.token = batch.serverChangeToken
                mirror = next
                if batch.moreComing { continue }
                state.withLock { $0.mirrors[key] = next }
                return .success(next)
            case .failure(let error) where error.code == .changeTokenExpired && mirror != nil && !startedOver:
                mirror = nil
                startedOver = true
            case .failure(let error):
                state.withLock { $0.mirrors[key] = nil }
                return .failure(error)
            }
        }
    }

    public func records(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> [Record] {
        guard scope != .public, !zoneID.isDefaultZone else { return [] }
        let viewer = Viewer(user: user, environment: environment)
        let service = try connection(for: viewer)
        let owner = zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName ? user : zoneID.ownerName
        let key = MirrorKey(viewer: viewer, scope: scope, zoneID: RecordZoneID(zoneName: zoneID.zoneName, ownerName: owner))
        guard case .success(let mirror) = try await refreshedMirror(key, service: service) else { return [] }
        return mirror.records.keys.sorted().compactMap { mirror.records[$0] }
    }

    // MARK: Tokens

    public func pendingChangeCount(
        since token: ServerChangeToken, zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Int? {
        let service = try connection(for: Viewer(user: user, environment: environment))
        var count = 0
        var from = token
        while true {
            let request = ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: from, desiredKeys: [])
            guard case .success(let batch) = try await zoneBatch(request, scope: scope, service: service) else { return nil }
            count += batch.changes.count
            from = batch.serverChangeToken
            if !batch.moreComing { return count }
        }
    }

    private func zoneBatch(
        _ request: ZoneChangesRequest, scope: DatabaseScope, service: HTTPCloudService
    ) async throws -> Result<ZoneChangesBatch, CloudError> {
        let outcome = try await answer { try await service.fetchRecordZoneChanges(in: scope, [request]) }
        switch outcome {
        case .success(let results):
            guard let first = results.first else {
                return .failure(CloudError(.internalError, "The server answered changes/zone without a result.", zoneID: request.zoneID))
            }
            if case .failure(let error) = first, Self.isTransport(error) { throw error }
            return first
        case .failure(let error):
            return .failure(error)
        }
    }

    public func validate(
        _ token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> CloudError? {
        switch try await rewind(
            from: token, zoneID: zoneID, scope: scope, viewer: Viewer(user: user, environment: environment), resultsLimit: 1, desiredKeys: []) {
        case .success: nil
        case .failure(let error): error
        }
    }

    public func rewind(
        from token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment,
        resultsLimit: Int
    ) async throws -> Result<TokenRewind, CloudError> {
        try await rewind(
            from: token, zoneID: zoneID, scope: scope, viewer: Viewer(user: user, environment: environment), resultsLimit: resultsLimit,
            desiredKeys: nil)
    }

    private func rewind(
        from token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, viewer: Viewer, resultsLimit: Int, desiredKeys: [String]?
    ) async throws -> Result<TokenRewind, CloudError> {
        let service = try connection(for: viewer)
        if let zoneID {
            let request = ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token, resultsLimit: resultsLimit, desiredKeys: desiredKeys)
            return try await zoneBatch(request, scope: scope, service: service).map(TokenRewind.zone)
        }
        return try await answer { try await service.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit) }
            .map(TokenRewind.database)
    }

    public func describe(_ token: ServerChangeToken) async -> String {
        "opaque token …\(token.shortForm) (over HTTP only the server can read what it stands for)"
    }

    public func pendingNotifications(forDevice deviceID: String) async -> [PendingNotification] { [] }

    public func databaseChanged(
        since token: ServerChangeToken, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Bool {
        switch try await rewind(
            from: token, zoneID: nil, scope: scope, viewer: Viewer(user: user, environment: environment), resultsLimit: 1, desiredKeys: nil) {
        case .success(.database(let batch)): !batch.changes.isEmpty || batch.moreComing
        case .success(.zone), .failure: true
        }
    }
}
