import SyncCore
import SyncServer
import SyncWorlds

/// Reads a `SimulatedServer`'s engine directly: exact, and never suspends.
/// One container; each question names the environment it is about (the
/// asking device's), so development and production devices each see their own data.
public struct InProcessServerObserver: ServerObserver {
    public let server: SimulatedServer
    public let container: String

    public init(server: SimulatedServer, container: String) {
        self.server = server
        self.container = container
    }

    public var source: String { "in-process server" }
    public var seesServerInternals: Bool { true }

    private func database(_ scope: DatabaseScope, _ environment: ContainerEnvironment) -> DatabaseID {
        DatabaseID(container: container, environment: environment, scope: scope)
    }

    public func zoneSummaries(user: String, environment: ContainerEnvironment) async throws -> [ServerZoneSummary] {
        let container = container
        return server.withEngine { engine in
            engine.zoneSummaries(user: user, container: container, environment: environment).map { summary in
                var zone = ServerZoneSummary(summary)
                if !summary.zoneID.isDefaultZone {
                    let shares = engine.shares(
                        caller: Caller(user: user), database: DatabaseID(container: container, environment: environment, scope: summary.scope),
                        zoneID: summary.zoneID)
                    if !shares.isEmpty {
                        zone.shares = shares.map { ServerShare($0.share, recordName: $0.name, owner: summary.zoneID.ownerName) }
                    }
                }
                return zone
            }
        }
    }

    public func removedZones(user: String, environment: ContainerEnvironment) async throws -> [ServerRemovedZone] {
        let container = container
        return server.withEngine { engine in
            engine.removedZones(user: user, container: container, environment: environment).map {
                ServerRemovedZone(scope: $0.scope, zoneID: $0.zoneID, reason: $0.reason)
            }
        }
    }

    public func publicZoneSummary(environment: ContainerEnvironment) async throws -> ServerZoneSummary {
        let container = container
        return server.withEngine { engine in ServerZoneSummary(engine.publicZoneSummary(container: container, environment: environment)) }
    }

    public func pendingChangeCount(
        since token: ServerChangeToken, zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Int? {
        let container = container
        return server.withEngine { engine in
            engine.pendingChangeCount(since: token, zoneID: zoneID, user: user, scope: scope, container: container, environment: environment)
        }
    }

    public func records(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> [Record] {
        let container = container
        return server.withEngine { engine in
            engine.records(in: zoneID, scope: scope, user: user, container: container, environment: environment)
        }
    }

    public func validate(
        _ token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> CloudError? {
        let container = container
        return server.withEngine { engine in
            engine.validate(token, zoneID: zoneID, user: user, scope: scope, container: container, environment: environment)
        }
    }

    public func rewind(
        from token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment,
        resultsLimit: Int
    ) async throws -> Result<TokenRewind, CloudError> {
        let database = database(scope, environment)
        let caller = Caller(user: user)
        return server.withEngine { engine in
            Result { () throws(CloudError) -> TokenRewind in
                guard let zoneID else {
                    return .database(try engine.fetchDatabaseChanges(caller: caller, database: database, since: token, resultsLimit: resultsLimit))
                }
                let results = try engine.fetchRecordZoneChanges(
                    caller: caller, database: database,
                    [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token, resultsLimit: resultsLimit)])
                guard let first = results.first else {
                    throw CloudError(.internalError, "The server answered a zone-changes request without a result.", zoneID: zoneID)
                }
                return .zone(try first.get())
            }
        }
    }

    public func describe(_ token: ServerChangeToken) async -> String {
        server.withEngine { engine in engine.describe(token) }
    }

    public func pendingNotifications(forDevice deviceID: String) async -> [PendingNotification] {
        server.pendingNotifications(for: deviceID)
    }

    public func position(of token: ServerChangeToken) async -> Int64? {
        server.withEngine { engine in engine.sequence(of: token) }
    }

    public func faultRules() async -> [String] {
        server.faultRules.map { "#\($0.id) \($0.rule)" }
    }

    public func pushFaultMarks(forDevice deviceID: String) async -> [PushFaultMark] {
        server.pushFaultMarks(for: deviceID)
    }

    public func schema(in environment: ContainerEnvironment) async -> ContainerSchema? {
        let container = container
        return server.withEngine { engine in engine.schema(container: container, environment: environment) }
    }

    public func databaseChanged(
        since token: ServerChangeToken, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Bool {
        let database = database(scope, environment)
        let caller = Caller(user: user)
        return server.withEngine { engine in
            guard let batch = try? engine.fetchDatabaseChanges(caller: caller, database: database, since: token, resultsLimit: 1) else {
                return true
            }
            return !batch.changes.isEmpty || batch.moreComing
        }
    }
}

extension ServerZoneSummary {
    init(_ summary: ZoneSummary) {
        self.init(
            scope: summary.scope, zoneID: summary.zoneID, recordCount: summary.recordCount, lastSequence: summary.lastSequence,
            currentToken: summary.currentToken)
    }
}

extension InProcessServerObserver {
    /// `ServerObserver/recordChanges(in:scope:user:environment:since:)` without
    /// suspending: the engine's change log, walked under one lock.
    public func recordChangesNow(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment, since position: ServerChangeToken
    ) -> Result<ZoneRecordChanges, CloudError> {
        let database = database(scope, environment)
        let caller = Caller(user: user)
        return server.withEngine { engine in
            Result { () throws(CloudError) -> ZoneRecordChanges in
                var changes: [RecordChange] = []
                var from = position
                while true {
                    let results = try engine.fetchRecordZoneChanges(
                        caller: caller, database: database, [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: from)])
                    guard let first = results.first else {
                        throw CloudError(.internalError, "The server answered a zone-changes request without a result.", zoneID: zoneID)
                    }
                    let batch = try first.get()
                    changes += batch.changes
                    from = batch.serverChangeToken
                    if !batch.moreComing { return ZoneRecordChanges(changes: changes, position: from) }
                }
            }
        }
    }

    /// `ServerObserver/recordsAtPosition(in:scope:user:environment:)` without
    /// suspending: the records and the zone's current token, read under one lock.
    public func recordsAtPositionNow(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) -> ZoneRecordsAtPosition {
        let container = container
        return server.withEngine { engine in
            let records = engine.records(in: zoneID, scope: scope, user: user, container: container, environment: environment)
            var position: ServerChangeToken?
            if scope != .public && !zoneID.isDefaultZone {
                position = engine.zoneSummaries(user: user, container: container, environment: environment)
                    .first { $0.scope == scope && $0.zoneID == zoneID }?.currentToken
            }
            return ZoneRecordsAtPosition(records: records, position: position)
        }
    }
}
