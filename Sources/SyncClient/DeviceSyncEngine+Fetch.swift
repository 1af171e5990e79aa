import SyncCore

extension DeviceSyncEngine {
    static let databaseOperationName = "changes/database"
    static let zoneOperationName = "changes/zone"

    /// Fetches every configured scope's changes into the store.
    ///
    /// - Parameters:
    ///   - resultsLimit: most changes per batch (default: the configuration's).
    ///   - stopAfterBatches: stop after this many batches in all, as if the app
    ///     were killed there (throws ``SyncClientError/interrupted(afterBatches:)``);
    ///     the next fetch resumes from the last stored token.
    /// - Throws: the interruption, a store failure, or the first server error
    ///   (the other scopes and zones are still fetched).
    public func fetchChanges(resultsLimit: Int? = nil, stopAfterBatches: Int? = nil) async throws {
        try await fetchChanges(scopes: configuration.scopes, resultsLimit: resultsLimit, budget: BatchBudget(limit: stopAfterBatches))
    }

    /// Takes exactly one step of a fetch, for stepping through it by hand:
    /// the next batch of a zone that is waiting to be fetched, or — when no
    /// zone is waiting — one batch of database changes (which may mark zones
    /// as waiting). Each batch is stored with its token, as in a full fetch.
    ///
    /// - Returns: whether another step would fetch more (a zone still waiting,
    ///   or more database changes).
    @discardableResult
    public func fetchNextBatch(resultsLimit: Int) async throws -> Bool {
        for scope in configuration.scopes where scope.supportsChangeFetching {
            if try !zonesWaiting(in: scope).isEmpty {
                _ = try await step { try await fetchZoneChanges(scope: scope, resultsLimit: resultsLimit, budget: BatchBudget(limit: 1)) }
                return try hasMoreToFetch()
            }
        }
        var interrupted = false
        for scope in configuration.scopes where scope.supportsChangeFetching {
            emit(.fetchStarted(scope: scope, databaseToken: try store.databaseToken(for: scope)))
            interrupted = try await step { try await fetchDatabaseChanges(scope: scope, resultsLimit: resultsLimit, budget: BatchBudget(limit: 1)) }
            let waiting = try zonesWaiting(in: scope)
            if interrupted || !waiting.isEmpty { break }
        }
        if interrupted { return true }
        return try hasMoreToFetch()
    }

    /// Runs one budgeted phase; an interruption is the expected end of a step.
    private func step(_ body: () async throws -> Void) async throws -> Bool {
        do {
            try await body()
            return false
        } catch let error as SyncClientError {
            guard case .interrupted = error else { throw error }
            return true
        } catch let error as StoreError {
            throw error.underlying
        }
    }

    private func zonesWaiting(in scope: DatabaseScope) throws -> [RecordZoneID] {
        try store.knownZones(in: scope).filter(\.needsFetch).map(\.zoneID)
    }

    private func hasMoreToFetch() throws -> Bool {
        for scope in configuration.scopes where scope.supportsChangeFetching {
            if !(try zonesWaiting(in: scope)).isEmpty { return true }
        }
        return false
    }

    func fetchChanges(scopes: [DatabaseScope], resultsLimit: Int?, budget: BatchBudget) async throws {
        let limit = resultsLimit ?? configuration.resultsLimit
        var firstError: (any Error)?
        for scope in scopes {
            do {
                guard scope.supportsChangeFetching else {
                    throw CloudError(
                        .invalidArguments,
                        "The public database does not support change fetching; the sync engine syncs the private and shared databases.")
                }
                emit(.fetchStarted(scope: scope, databaseToken: try store.databaseToken(for: scope)))
                try await fetchDatabaseChanges(scope: scope, resultsLimit: limit, budget: budget)
                try await fetchZoneChanges(scope: scope, resultsLimit: limit, budget: budget)
                emit(.fetchCompleted(scope: scope))
            } catch let error as SyncClientError {
                if case .interrupted(let n) = error { emit(.fetchInterrupted(afterBatches: n)) }
                throw error
            } catch let error as StoreError {
                throw error.underlying
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    // MARK: Database changes

    private func fetchDatabaseChanges(scope: DatabaseScope, resultsLimit: Int?, budget: BatchBudget) async throws {
        var refetchedAfterExpiry = false
        var retries = 0
        while true {
            let token = try store.databaseToken(for: scope)
            if token == nil {
                var begin = StoreBatch(scope: scope)
                begin.beginDatabaseRefetch = true
                try storeApply(begin)
            }
            let operation = FetchDatabaseChangesOperation(service: service, scope: scope, previousServerChangeToken: token)
            operation.resultsLimit = resultsLimit
            operation.batchLimit = budget.remaining
            let state = DatabaseFetchState()
            operation.recordZoneWithIDChangedBlock = { state.changes.append(.zoneChanged($0)) }
            operation.recordZoneWithIDWasDeletedBlock = { state.changes.append(.zoneRemoved($0, reason: .deleted)) }
            operation.recordZoneWithIDWasPurgedBlock = { state.changes.append(.zoneRemoved($0, reason: .purged)) }
            operation.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = {
                state.changes.append(.zoneRemoved($0, reason: .encryptedDataReset))
            }
            operation.changeTokenUpdatedBlock = { [unowned operation] token in
                self.commitDatabaseBatch(state, scope: scope, token: token, moreComing: true, operation: operation)
            }
            operation.fetchDatabaseChangesResultBlock = { [unowned operation] result in
                state.result = result
                if case .success(let final) = result {
                    self.commitDatabaseBatch(state, scope: scope, token: final.serverChangeToken, moreComing: final.moreComing, operation: operation)
                }
            }
            await operation.run()
            budget.used += operation.batchesReceived
            if let storeError = state.storeError { throw StoreError(underlying: storeError) }
            switch state.result {
            case .success?, nil:
                return
            case .failure(let error as CloudError)? where error.code == .changeTokenExpired && !refetchedAfterExpiry:
                refetchedAfterExpiry = true
                emit(.tokenExpired(kind: .database, scope: scope, zoneID: nil))
                var begin = StoreBatch(scope: scope)
                begin.beginDatabaseRefetch = true
                try storeApply(begin)
            case .failure(SyncClientError.interrupted)?:
                throw SyncClientError.interrupted(afterBatches: budget.used)
            case .failure(let error as CloudError)? where error.isTransient && retries < configuration.retry.maxRetries:
                // Wait, then go on from the last stored batch's token (the loop reads it again).
                retries += 1
                await waitBeforeRetry(error, operation: Self.databaseOperationName, scope: scope, zoneID: nil, attempt: retries)
            case .failure(let error)?:
                emit(.error(SyncErrorReport(operation: Self.databaseOperationName, scope: scope, error: error)))
                throw error
            }
        }
    }

    /// Stores one `changes/database` batch: zone removals handled, changed
    /// zones marked for fetching, and the batch's token — in one transaction.
    private func commitDatabaseBatch(
        _ state: DatabaseFetchState, scope: DatabaseScope, token: ServerChangeToken, moreComing: Bool,
        operation: FetchDatabaseChangesOperation
    ) {
        guard state.storeError == nil else { return }
        let changes = state.changes
        state.changes = []
        var events: [SyncEvent] = []
        do {
            let batch: StoreBatch
            (batch, events) = try storeBatch(forDatabaseChanges: changes, scope: scope, token: token, moreComing: moreComing)
            try store.apply(batch)
        } catch {
            state.storeError = error
            operation.cancel()
            emit(.error(SyncErrorReport(operation: "store", scope: scope, error: error)))
            return
        }
        for event in events { emit(event) }
        emit(.tokenReceived(TokenReceipt(
            deviceID: service.deviceID, kind: .database, scope: scope, zoneID: nil, token: token,
            operation: Self.databaseOperationName, batchIndex: state.batchIndex, moreComing: moreComing,
            changeCount: changes.count, time: clock.now())))
        state.batchIndex += 1
    }

    // MARK: Zone changes

    private func fetchZoneChanges(scope: DatabaseScope, resultsLimit: Int?, budget: BatchBudget) async throws {
        let pendingDeletions = Set(try store.pendingChanges().filter { $0.kind == .deleteZone && $0.scope == scope }.map(\.zoneID))
        var zones = try store.knownZones(in: scope).filter { $0.needsFetch && !pendingDeletions.contains($0.zoneID) }.map(\.zoneID)
        var expiredOnce = Set<RecordZoneID>()
        var firstError: (any Error)?
        var retries: [RecordZoneID: Int] = [:]
        while !zones.isEmpty {
            var configurations: [RecordZoneID: FetchRecordZoneChangesOperation.ZoneConfiguration] = [:]
            var begin = StoreBatch(scope: scope)
            for zoneID in zones {
                let token = try store.zoneToken(for: zoneID, in: scope)
                if token == nil { begin.beginZoneRefetch.append(zoneID) }
                configurations[zoneID] = .init(previousServerChangeToken: token, resultsLimit: resultsLimit)
            }
            if !begin.isEmpty { try storeApply(begin) }

            let operation = FetchRecordZoneChangesOperation(
                service: service, scope: scope, recordZoneIDs: zones, configurationsByRecordZoneID: configurations)
            operation.batchLimit = budget.remaining
            let state = ZoneFetchState()
            operation.recordWasChangedBlock = { _, result in
                if case .success(let record) = result { state.buffer.append(.changed(record)) }
            }
            operation.recordWithIDWasDeletedBlock = { state.buffer.append(.deleted($0, recordType: $1)) }
            operation.recordZoneChangeTokensUpdatedBlock = { [unowned operation] zoneID, token, _ in
                guard let token else { return }
                self.commitZoneBatch(state, scope: scope, zoneID: zoneID, token: token, moreComing: true, operation: operation)
            }
            operation.recordZoneFetchResultBlock = { [unowned operation] zoneID, result in
                switch result {
                case .success(let final):
                    self.commitZoneBatch(state, scope: scope, zoneID: zoneID, token: final.serverChangeToken, moreComing: final.moreComing, operation: operation)
                case .failure(let error):
                    state.buffer = []
                    state.failures.append((zoneID, error))
                }
            }
            await operation.run()
            budget.used += operation.batchesReceived
            if let storeError = state.storeError { throw StoreError(underlying: storeError) }

            var retry: [RecordZoneID] = []
            var resume: [RecordZoneID] = []
            var transient: (CloudError, Int)?
            var interrupted = false
            var cleanup = StoreBatch(scope: scope)
            var events: [SyncEvent] = []
            for (zoneID, error) in state.failures {
                if case SyncClientError.interrupted = error { interrupted = true; continue }
                guard let cloud = error as? CloudError else {
                    emit(.error(SyncErrorReport(operation: Self.zoneOperationName, scope: scope, zoneID: zoneID, error: error)))
                    if firstError == nil { firstError = error }
                    continue
                }
                if cloud.isTransient, retries[zoneID, default: 0] < configuration.retry.maxRetries {
                    // Fetched again, after a wait, from the last batch token stored for the zone.
                    let attempt = retries[zoneID, default: 0] + 1
                    retries[zoneID] = attempt
                    resume.append(zoneID)
                    if transient.map({ attempt > $0.1 }) ?? true { transient = (cloud, attempt) }
                    continue
                }
                switch cloud.code {
                case .changeTokenExpired where !expiredOnce.contains(zoneID):
                    expiredOnce.insert(zoneID)
                    events.append(.tokenExpired(kind: .recordZone, scope: scope, zoneID: zoneID))
                    retry.append(zoneID)
                case .zoneNotFound:
                    let count = try store.recordCount(in: scope, zoneID: zoneID)
                    let dropped = try store.pendingChanges().count { $0.scope == scope && $0.zoneID == zoneID }
                    cleanup.zoneRemovals.append(ZoneRemoval(zoneID: zoneID))
                    events.append(.zoneDeleted(scope: scope, zoneID: zoneID, reason: .zoneNotFound, recordsRemoved: count, pendingChangesDropped: dropped))
                case .userDeletedZone:
                    let count = try store.recordCount(in: scope, zoneID: zoneID)
                    let dropped = try store.pendingChanges().count { $0.scope == scope && $0.zoneID == zoneID }
                    cleanup.zoneRemovals.append(ZoneRemoval(zoneID: zoneID))
                    cleanup.purgedZonesAdded.append(zoneID)
                    events.append(.zonePurged(scope: scope, zoneID: zoneID, recordsRemoved: count, pendingChangesDropped: dropped))
                default:
                    emit(.error(SyncErrorReport(operation: Self.zoneOperationName, scope: scope, zoneID: zoneID, error: cloud)))
                    if firstError == nil { firstError = cloud }
                }
            }
            // An expired token: drop it and fetch the zone again from no token,
            // marking its records so those the full fetch does not return go.
            cleanup.beginZoneRefetch = retry
            if !cleanup.isEmpty { try storeApply(cleanup) }
            for event in events { emit(event) }
            if interrupted { throw SyncClientError.interrupted(afterBatches: budget.used) }
            if let (error, attempt) = transient {
                await waitBeforeRetry(error, operation: Self.zoneOperationName, scope: scope, zoneID: error.zoneID, attempt: attempt)
            }
            zones = retry + resume
        }
        if let firstError { throw firstError }
    }

    /// Stores one `changes/zone` batch: its records (with pending local
    /// changes laid over them), its deletions and its token, in one transaction.
    private func commitZoneBatch(
        _ state: ZoneFetchState, scope: DatabaseScope, zoneID: RecordZoneID, token: ServerChangeToken, moreComing: Bool,
        operation: FetchRecordZoneChangesOperation
    ) {
        guard state.storeError == nil else { return }
        let changes = state.buffer
        state.buffer = []
        let batchIndex = state.batchIndex[zoneID, default: 0]
        var events: [SyncEvent] = []
        var batch = StoreBatch(scope: scope)
        do {
            (batch, events) = try storeBatch(
                for: changes, zoneID: zoneID, scope: scope, token: token, moreComing: moreComing)
            try store.apply(batch)
        } catch {
            state.storeError = error
            operation.cancel()
            emit(.error(SyncErrorReport(operation: "store", scope: scope, zoneID: zoneID, error: error)))
            return
        }
        emit(.recordsApplied(
            scope: scope, zoneID: zoneID, saved: batch.savedRecords.count, deleted: batch.deletedRecordIDs.count, batchIndex: batchIndex))
        for event in events { emit(event) }
        emit(.tokenReceived(TokenReceipt(
            deviceID: service.deviceID, kind: .recordZone, scope: scope, zoneID: zoneID, token: token,
            operation: Self.zoneOperationName, batchIndex: batchIndex, moreComing: moreComing,
            changeCount: changes.count, time: clock.now())))
        state.batchIndex[zoneID] = batchIndex + 1
    }

    /// What the engine stores for one `changes/database` batch, in one
    /// transaction: changed zones marked for fetching, removed zones handled by
    /// reason (deleted, purged, encrypted-data reset: re-queued for upload),
    /// zones a full refetch no longer lists dropped, and the batch's token.
    /// Returned rather than applied, with the events it implies, so anything
    /// storing a fetched batch does exactly what the engine does.
    public func storeBatch(
        forDatabaseChanges changes: [DatabaseChange], scope: DatabaseScope, token: ServerChangeToken, moreComing: Bool
    ) throws -> (StoreBatch, [SyncEvent]) {
        var events: [SyncEvent] = []
        var batch = StoreBatch(scope: scope)
        let pending = try store.pendingChanges()
        let purged = Set(try store.purgedZones(in: scope))
        let known = Set(try store.knownZones(in: scope).map(\.zoneID))
        func pendingCount(_ zoneID: RecordZoneID) -> Int {
            pending.count { $0.scope == scope && $0.zoneID == zoneID }
        }
        var reported = Set<RecordZoneID>()
        for change in changes {
            reported.insert(change.zoneID)
            switch change {
            case .zoneChanged(let zoneID):
                batch.zonesNeedingFetch.append(zoneID)
                if purged.contains(zoneID) { batch.purgedZonesRemoved.append(zoneID) }
            case .zoneRemoved(let zoneID, .deleted):
                let count = try store.recordCount(in: scope, zoneID: zoneID)
                batch.zoneRemovals.append(ZoneRemoval(zoneID: zoneID))
                events.append(.zoneDeleted(scope: scope, zoneID: zoneID, reason: .deleted, recordsRemoved: count, pendingChangesDropped: pendingCount(zoneID)))
            case .zoneRemoved(let zoneID, .purged):
                let count = try store.recordCount(in: scope, zoneID: zoneID)
                batch.zoneRemovals.append(ZoneRemoval(zoneID: zoneID))
                batch.purgedZonesAdded.append(zoneID)
                events.append(.zonePurged(scope: scope, zoneID: zoneID, recordsRemoved: count, pendingChangesDropped: pendingCount(zoneID)))
            case .zoneRemoved(let zoneID, .encryptedDataReset):
                // The server lost the zone; the device still has the data: forget the
                // zone's token and the records' change tags, and queue everything again.
                // A zone this device never had (or deleted itself) is not created again.
                let records = try store.records(in: scope, zoneID: zoneID)
                batch.zoneRemovals.append(ZoneRemoval(zoneID: zoneID, removeRecords: false, removePendingChanges: false))
                guard known.contains(zoneID) || !records.isEmpty else { continue }
                let pendingByKey = Dictionary(pending.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
                for record in records {
                    var fresh = record
                    fresh.recordChangeTag = nil
                    fresh.created = nil
                    fresh.modified = nil
                    batch.savedRecords.append(fresh)
                    let key = PendingChange.recordKey(record.recordID, scope: scope)
                    let earlier = pendingByKey[key]?.changedKeys ?? []
                    batch.pendingUpserts.append(.saveRecord(
                        record.recordID, recordType: record.recordType, changedKeys: record.fields.names + earlier, scope: scope))
                }
                if scope == .private { batch.pendingUpserts.append(.saveZone(zoneID)) }
                events.append(.zoneEncryptedDataReset(scope: scope, zoneID: zoneID, recordsQueuedForUpload: records.count))
            }
        }
        if !moreComing {
            // The end of a fetch: zones a full refetch did not list are gone.
            for zone in try store.knownZones(in: scope) where zone.isStale && !reported.contains(zone.zoneID) {
                let count = try store.recordCount(in: scope, zoneID: zone.zoneID)
                batch.zoneRemovals.append(ZoneRemoval(zoneID: zone.zoneID))
                events.append(.zoneDeleted(
                    scope: scope, zoneID: zone.zoneID, reason: .missingFromRefetch, recordsRemoved: count,
                    pendingChangesDropped: pendingCount(zone.zoneID)))
            }
        }
        batch.databaseToken = .set(token)
        return (batch, events)
    }

    /// What the engine stores for one `changes/zone` batch, in one
    /// transaction: the records with pending local changes laid over them, the
    /// deletions, the reconciliation that ends a refetch from no token, and the
    /// batch's token. Returned rather than applied, with the events it implies,
    /// so that anything storing a fetched batch (the scenario runner's own
    /// fetches too) does exactly what the engine does.
    public func storeBatch(
        for changes: [RecordChange], zoneID: RecordZoneID, scope: DatabaseScope, token: ServerChangeToken, moreComing: Bool
    ) throws -> (StoreBatch, [SyncEvent]) {
        var events: [SyncEvent] = []
        var batch = StoreBatch(scope: scope)
        let pending = Dictionary(
            try store.pendingChanges().filter(\.isRecordChange).map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        var returned = Set<RecordID>()
        for change in changes {
            let key = PendingChange.recordKey(change.recordID, scope: scope)
            switch change {
            case .changed(let serverRecord):
                returned.insert(serverRecord.recordID)
                switch pending[key] {
                case nil:
                    batch.savedRecords.append(serverRecord)
                case let local? where local.kind == .saveRecord:
                    // Keep the local edit on top of the newer server record.
                    var merged = serverRecord
                    let cached = try store.record(serverRecord.recordID, in: scope)
                    for name in local.changedKeys { merged[name] = cached?[name] }
                    batch.savedRecords.append(merged)
                case _?:
                    break  // deleted locally, deletion not sent yet: keep it deleted
                }
            case .deleted(let recordID, _):
                switch pending[key] {
                case nil:
                    batch.deletedRecordIDs.append(recordID)
                case let local? where local.kind == .saveRecord:
                    if try store.record(recordID, in: scope)?.recordChangeTag != nil {
                        batch.pendingRemovals.append(key)
                        batch.deletedRecordIDs.append(recordID)
                        events.append(.pendingChangeDropped(local, reason: "The record was deleted on the server before this change was sent."))
                    }
                case _?:
                    batch.pendingRemovals.append(key)
                    batch.deletedRecordIDs.append(recordID)
                }
            }
        }
        if !moreComing {
            batch.zonesFetched.append(zoneID)
            var vanished: [RecordID] = []
            for recordID in try store.staleRecordIDs(in: scope, zoneID: zoneID)
            where !returned.contains(recordID) && pending[PendingChange.recordKey(recordID, scope: scope)] == nil {
                vanished.append(recordID)
            }
            if !vanished.isEmpty {
                batch.deletedRecordIDs += vanished
                events.append(.vanishedRecordsRemoved(scope: scope, zoneID: zoneID, recordIDs: vanished))
            }
        }
        batch.zoneTokens = [ZoneTokenChange(zoneID: zoneID, update: .set(token))]
        return (batch, events)
    }

    /// Applies a batch, reporting a failure as a store error.
    func storeApply(_ batch: StoreBatch) throws {
        do {
            try store.apply(batch)
        } catch {
            emit(.error(SyncErrorReport(operation: "store", scope: batch.scope, error: error)))
            throw StoreError(underlying: error)
        }
    }
}

private final class DatabaseFetchState {
    var changes: [DatabaseChange] = []
    var batchIndex = 0
    var result: Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>?
    var storeError: (any Error)?
}

private final class ZoneFetchState {
    var buffer: [RecordChange] = []
    var batchIndex: [RecordZoneID: Int] = [:]
    var failures: [(RecordZoneID, any Error)] = []
    var storeError: (any Error)?
}
