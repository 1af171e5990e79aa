import SyncCore

/// One zone as the inspector shows it: the server's side.
public struct ZoneSummary: Sendable, Hashable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    public var recordCount: Int
    /// The sequence of the zone's latest change (0: none yet).
    public var lastSequence: Int64
    /// The token for "now", as a fetch that caught up would receive (custom zones only).
    public var currentToken: ServerChangeToken?
}

/// One zone that is gone, and why.
public struct RemovedZoneSummary: Sendable, Hashable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    public var reason: ZoneDeletionReason
}

/// Read-only views of the engine's state for the inspector and transcripts.
/// They do not change history and are not part of the HTTP API.
extension ServerEngine {
    /// The zones `user` sees in the private and shared databases, the
    /// private default zone included, sorted by scope and zone.
    public func zoneSummaries(user: String, container: String, environment: ContainerEnvironment = .development) -> [ZoneSummary] {
        guard accounts[user] != nil else { return [] }
        let caller = Caller(user: user)
        let privateDatabase = DatabaseID(container: container, environment: environment, scope: .private)
        let sharedDatabase = DatabaseID(container: container, environment: environment, scope: .shared)
        let dbs = databases(of: user, in: privateDatabase)
        var result: [ZoneSummary] = []
        for zone in dbs.privateZones.values.sorted(by: { $0.zoneID < $1.zoneID }) {
            result.append(ZoneSummary(
                scope: .private, zoneID: zone.zoneID, recordCount: zone.records.count, lastSequence: zone.log.lastSequence,
                currentToken: zone.zoneID.isDefaultZone ? nil : currentToken(of: zone, caller: caller, scope: .private, database: privateDatabase)))
        }
        for id in dbs.sharedZones.sorted() {
            guard let zone = databases(of: id.ownerName, in: sharedDatabase).privateZones[id.zoneName] else { continue }
            result.append(ZoneSummary(
                scope: .shared, zoneID: id, recordCount: zone.records.count, lastSequence: zone.log.lastSequence,
                currentToken: currentToken(of: zone, caller: caller, scope: .shared, database: sharedDatabase)))
        }
        return result
    }

    /// The public database's default zone.
    public func publicZoneSummary(container: String, environment: ContainerEnvironment = .development) -> ZoneSummary {
        let zone = containerState(DatabaseID(container: container, environment: environment, scope: .public)).publicZone
        return ZoneSummary(scope: .public, zoneID: zone.zoneID, recordCount: zone.records.count, lastSequence: zone.log.lastSequence, currentToken: nil)
    }

    /// Private zones of `user` that were deleted, purged or reset (until re-created).
    public func removedZones(user: String, container: String, environment: ContainerEnvironment = .development) -> [RemovedZoneSummary] {
        guard accounts[user] != nil else { return [] }
        let dbs = databases(of: user, in: DatabaseID(container: container, environment: environment, scope: .private))
        return dbs.removedZoneReasons.sorted { $0.key < $1.key }.map {
            RemovedZoneSummary(scope: .private, zoneID: RecordZoneID(zoneName: $0.key, ownerName: user), reason: $0.value)
        }
    }

    /// How many entries a fetch from `token` would return now in `zoneID`
    /// (live records changed since, plus deletions since), or `nil` when the
    /// token cannot be used (wrong zone, expired…). Walks only what changed since.
    public func pendingChangeCount(
        since token: ServerChangeToken, zoneID: RecordZoneID, user: String, scope: DatabaseScope, container: String,
        environment: ContainerEnvironment = .development
    ) -> Int? {
        let database = DatabaseID(container: container, environment: environment, scope: scope)
        let caller = Caller(user: user)
        guard let zone = try? self.zone(zoneID, for: caller, in: database),
              let (sequence, floor) = try? startingPoint(
                  token, kind: .recordZone, caller: caller, database: database, zoneID: zoneID,
                  history: historyID ^ zone.incarnation, lastSequence: zone.log.lastSequence,
                  compactedThrough: zone.compactedThrough)
        else { return nil }
        var count = 0
        _ = zone.log.walkLive(from: sequence + 1) { entrySequence, name in
            if zone.records[name] != nil || entrySequence > floor { count += 1 }
            return true
        }
        return count
    }

    /// The live records of a zone, sorted by name, `range` of them (for
    /// paging through large zones without copying them all).
    public func records(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, container: String,
        environment: ContainerEnvironment = .development
    ) -> [Record] {
        let database = DatabaseID(container: container, environment: environment, scope: scope)
        let caller = Caller(user: user)
        let id = normalize(zoneID, caller: caller, scope: scope)
        guard let zone = try? self.zone(id, for: caller, in: database) else { return [] }
        return zone.records.keys.sorted().compactMap { name in zone.records[name].map { record($0, name: name, zone: zone) } }
    }

    /// Checks a token without fetching: `nil` if it is usable now, otherwise the error a fetch would get.
    public func validate(
        _ token: ServerChangeToken, zoneID: RecordZoneID?, user: String, scope: DatabaseScope, container: String,
        environment: ContainerEnvironment = .development
    ) -> CloudError? {
        let database = DatabaseID(container: container, environment: environment, scope: scope)
        let caller = Caller(user: user)
        do {
            if let zoneID {
                let zone = try self.zone(zoneID, for: caller, in: database)
                _ = try startingPoint(
                    token, kind: .recordZone, caller: caller, database: database, zoneID: zoneID,
                    history: historyID ^ zone.incarnation, lastSequence: zone.log.lastSequence, compactedThrough: zone.compactedThrough)
            } else {
                let dbs = databases(of: user, in: database)
                let log = scope == .shared ? dbs.sharedLog : dbs.privateLog
                _ = try startingPoint(
                    token, kind: .database, caller: caller, database: database, zoneID: nil,
                    history: historyID ^ log.incarnation, lastSequence: log.log.lastSequence, compactedThrough: log.compactedThrough)
            }
            return nil
        } catch {
            return error
        }
    }
}
