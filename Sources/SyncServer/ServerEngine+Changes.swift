import Foundation
import SyncCore

extension ServerEngine {
    // MARK: changes/database

    /// `changes/database`: the zones that changed since `token`, each once.
    public func fetchDatabaseChanges(
        caller: Caller, database: DatabaseID, since token: ServerChangeToken?, resultsLimit: Int? = nil
    ) throws(CloudError) -> DatabaseChangesBatch {
        try checkCaller(caller)
        guard database.scope != .public else {
            throw CloudError(
                .invalidArguments,
                "The public database does not support change fetching (changes/database); use queries there.")
        }
        let limit = try effectiveLimit(resultsLimit)
        let dbs = databases(of: caller.user, in: database)
        let history = historyID ^ (database.scope == .private ? dbs.privateLog.incarnation : dbs.sharedLog.incarnation)

        func run(_ log: inout DatabaseLog) throws(CloudError) -> DatabaseChangesBatch {
            let (sequence, floor) = try startingPoint(
                token, kind: .database, caller: caller, database: database, zoneID: nil, history: history,
                lastSequence: log.log.lastSequence, compactedThrough: log.compactedThrough)
            var changes: [DatabaseChange] = []
            var last = sequence
            let entries = log.entries
            let stoppedAt = log.log.walkLive(from: sequence + 1) { entrySequence, zoneID in
                let removal = entries[zoneID]?.removal
                let skip = removal != nil && entrySequence <= floor
                if !skip {
                    if changes.count == limit { return false }
                    changes.append(removal.map { .zoneRemoved(zoneID, reason: $0) } ?? .zoneChanged(zoneID))
                }
                last = entrySequence
                return true
            }
            let moreComing = stoppedAt != nil
            if !moreComing { last = log.log.lastSequence }
            let token = signer.sign(TokenPayload(
                kind: .database, scope: database.scope, sequence: last, floor: floor, history: history,
                user: caller.user, container: database.container, environment: database.environment,
                zoneName: "", zoneOwner: ""))
            return DatabaseChangesBatch(changes: changes, serverChangeToken: token, moreComing: moreComing)
        }
        return database.scope == .private ? try run(&dbs.privateLog) : try run(&dbs.sharedLog)
    }

    // MARK: changes/zone

    /// `changes/zone`: for each requested zone, in order, its changes since
    /// its token. Errors are per zone; the other zones are still answered.
    public func fetchRecordZoneChanges(
        caller: Caller, database: DatabaseID, _ requests: [ZoneChangesRequest]
    ) throws(CloudError) -> [Result<ZoneChangesBatch, CloudError>] {
        try checkCaller(caller)
        guard database.scope != .public else {
            throw CloudError(
                .invalidArguments,
                "The public database does not support change fetching (changes/zone); use queries there.")
        }
        guard requests.count <= configuration.maxOperationsPerRequest else {
            throw CloudError(.limitExceeded, "This request asks for \(requests.count) zones; at most \(configuration.maxOperationsPerRequest) are allowed.")
        }
        return requests.map { request in
            Result { () throws(CloudError) in try fetchZoneChanges(caller: caller, database: database, request) }
        }
    }

    private func fetchZoneChanges(
        caller: Caller, database: DatabaseID, _ request: ZoneChangesRequest
    ) throws(CloudError) -> ZoneChangesBatch {
        let zoneID = normalize(request.zoneID, caller: caller, scope: database.scope)
        guard !zoneID.isDefaultZone else {
            throw CloudError(
                .invalidArguments,
                "The default zone does not support change fetching; keep records you want to sync in a custom zone.",
                zoneID: zoneID)
        }
        let zone = try zone(zoneID, for: caller, in: database)
        let limit = try effectiveLimit(request.resultsLimit)
        let history = historyID ^ zone.incarnation
        let (sequence, floor) = try startingPoint(
            request.previousServerChangeToken, kind: .recordZone, caller: caller, database: database, zoneID: zoneID,
            history: history, lastSequence: zone.log.lastSequence, compactedThrough: zone.compactedThrough)
        var changes: [RecordChange] = []
        changes.reserveCapacity(min(limit, zone.log.liveCount))
        // desiredRecordTypes: entries of other types are passed over (the
        // token still moves past them); a type never seen matches nothing.
        let wantedTypes: Set<UInt32>? = request.desiredRecordTypes.map { Set($0.compactMap { names.index(of: $0) }) }
        // A record share's participant sees only the hierarchies they accepted.
        let viewer = zone.limitedViewer(caller.user, in: database.scope)
        let links = zone.links
        var last = sequence
        let stoppedAt = zone.log.walkLive(from: sequence + 1) { entrySequence, name in
            if let viewer, !zone.isVisible(name, to: viewer) {
                // not shared with the caller: skipped
            } else if let stored = zone.records[name] {
                if let wantedTypes, !wantedTypes.contains(stored.type) {
                    // not wanted: skipped
                } else {
                    if changes.count == limit { return false }
                    // Built in place, straight into the batch, unless the zone has parents or shares
                    // to add: a record built in a variable first is copied once more on its way in.
                    if let links {
                        var record = record(stored, name: name, zoneID: zoneID, desiredKeys: request.desiredKeys)
                        links.apply(to: &record)
                        changes.append(.changed(record))
                    } else {
                        changes.append(.changed(record(stored, name: name, zoneID: zoneID, desiredKeys: request.desiredKeys)))
                    }
                }
            } else if entrySequence > floor, let tombstone = zone.tombstones[name], wantedTypes?.contains(tombstone.type) ?? true {
                if changes.count == limit { return false }
                changes.append(.deleted(RecordID(recordName: name, zoneID: zoneID), recordType: names[tombstone.type]))
            }
            last = entrySequence
            return true
        }
        let moreComing = stoppedAt != nil
        if !moreComing { last = zone.log.lastSequence }
        let token = signer.sign(TokenPayload(
            kind: .recordZone, scope: database.scope, sequence: last, floor: floor, history: history,
            user: caller.user, container: database.container, environment: database.environment,
            zoneName: zoneID.zoneName, zoneOwner: zoneID.ownerName))
        return ZoneChangesBatch(
            zoneID: zoneID, changes: changes, serverChangeToken: token, moreComing: moreComing,
            clientChangeTokenData: zone.clientChangeTokenData)
    }

    /// The token for "everything up to now" in a zone, as `zones/list` reports it.
    func currentToken(of zone: ZoneState, caller: Caller, scope: DatabaseScope, database: DatabaseID) -> ServerChangeToken {
        let last = zone.log.lastSequence
        return signer.sign(TokenPayload(
            kind: .recordZone, scope: scope, sequence: last, floor: last, history: historyID ^ zone.incarnation,
            user: caller.user, container: database.container, environment: database.environment,
            zoneName: zone.zoneID.zoneName, zoneOwner: zone.zoneID.ownerName))
    }

    // MARK: Tokens

    func effectiveLimit(_ requested: Int?) throws(CloudError) -> Int {
        guard let requested, requested != 0 else { return configuration.maxResultsLimit }
        guard requested > 0 else {
            throw CloudError(.invalidArguments, "resultsLimit must be 0 (the server's default, \(configuration.maxResultsLimit)) or a positive number, not \(requested).")
        }
        return min(requested, configuration.maxResultsLimit)
    }

    /// Reads and checks a token; returns where to resume (`sequence`) and
    /// below which deletions need not be reported (`floor`).
    func startingPoint(
        _ token: ServerChangeToken?, kind: ChangeTokenKind, caller: Caller, database: DatabaseID, zoneID: RecordZoneID?,
        history: UInt64, lastSequence: Int64, compactedThrough: Int64
    ) throws(CloudError) -> (sequence: Int64, floor: Int64) {
        guard let token else { return (0, lastSequence) }
        let payload: TokenPayload
        do {
            payload = try signer.verify(token)
        } catch {
            throw CloudError(.invalidArguments, Self.explain(error), zoneID: zoneID)
        }
        let operation = kind == .database ? "changes/database (CKFetchDatabaseChangesOperation)" : "changes/zone (CKFetchRecordZoneChangesOperation)"
        guard payload.kind == kind else {
            throw CloudError(
                .invalidArguments,
                "This is a \(payload.kind) token; \(operation) needs a \(kind) token. Keep database tokens and zone tokens apart in your cache.",
                zoneID: zoneID)
        }
        guard payload.container == database.container, payload.environment == database.environment else {
            throw CloudError(
                .invalidArguments,
                "This token was issued for container '\(payload.container)' (\(payload.environment.rawValue)), not '\(database.container)' (\(database.environment.rawValue)).",
                zoneID: zoneID)
        }
        guard payload.user == caller.user else {
            throw CloudError(.invalidArguments, "This token was issued to another user (\(payload.user)), not to \(caller.user).", zoneID: zoneID)
        }
        guard payload.scope == database.scope else {
            throw CloudError(
                .invalidArguments,
                "This token belongs to the \(payload.scope.rawValue) database; this request is for the \(database.scope.rawValue) database.",
                zoneID: zoneID)
        }
        if let zoneID, payload.zoneName != zoneID.zoneName || payload.zoneOwner != zoneID.ownerName {
            throw CloudError(
                .invalidArguments,
                "This token belongs to zone '\(payload.zoneName)' (owner \(payload.zoneOwner)), not to zone '\(zoneID.zoneName)' (owner \(zoneID.ownerName)).",
                zoneID: zoneID)
        }
        let what = zoneID.map { "zone '\($0.zoneName)'" } ?? "this database"
        guard payload.history == history, payload.sequence <= lastSequence else {
            throw CloudError(
                .changeTokenExpired,
                "This token comes from a history of \(what) that the server no longer has (it was deleted and created again, or the server's state was replaced). Fetch again with no token.",
                zoneID: zoneID)
        }
        guard payload.coverage >= compactedThrough else {
            throw CloudError(
                .changeTokenExpired,
                "This token is older than the server's retention horizon for \(what): the changes since then were compacted away. Fetch again with no token and reconcile.",
                zoneID: zoneID)
        }
        return (payload.sequence, payload.floor)
    }

    static func explain(_ error: TokenDecodingError) -> String {
        switch error {
        case .empty:
            "The change token is empty: pass a token exactly as the server issued it, or no token at all to fetch everything."
        case .notAToken:
            "This is not a change token: tokens are URL-safe base64 text issued by this server. Pass one exactly as it was issued, or no token to fetch everything."
        case .truncated:
            "This change token is truncated: it ends before its content does. Pass the whole token exactly as the server issued it."
        case .badSignature:
            "This change token's signature does not match: it was edited, or issued by another server. Pass a token exactly as this server issued it."
        case .malformed:
            "This change token is malformed: it was issued by this server but cannot be read. Fetch again with no token."
        }
    }

    /// What a token stands for, in words — for teaching and the inspector.
    /// Clients must not rely on it; the server's view is shown to help people learn.
    public func describe(_ token: ServerChangeToken) -> String {
        guard let payload = try? signer.verify(token) else { return "not a valid token" }
        let place = payload.kind == .database
            ? "\(payload.scope.rawValue) database of \(payload.user)"
            : "zone \(payload.zoneName)@\(payload.zoneOwner) (\(payload.scope.rawValue))"
        let through = payload.floor > payload.sequence
            ? "resumes a first fetch after change \(payload.sequence) (of \(payload.floor))"
            : "through change \(payload.sequence)"
        return "\(payload.kind) token for \(place), \(through)"
    }

    /// The sequence a token covers through, for the inspector's "behind by N".
    public func sequence(of token: ServerChangeToken) -> Int64? {
        (try? signer.verify(token))?.sequence
    }
}
