import SyncCore

extension DeviceSyncEngine {
    /// Sends the queued local changes: zone deletions, then zone creations
    /// (also for zones that records are saved into and the server does not
    /// know yet), then record saves and deletions, zone by zone.
    ///
    /// Saves use their pending change's save policy, by default
    /// `.ifServerRecordUnchanged` with the cached change tag; on
    /// `serverRecordChanged` the locally changed fields are written over the
    /// server's record and it is sent again (at most `maxConflictRetries`
    /// times). `.changedKeys` sends only the changed fields. A save of a record the server deleted meanwhile is dropped.
    /// Deletions are unconditional. Successful saves update the cached record
    /// (new change tag); tokens are never touched here.
    ///
    /// - Throws: a whole-request failure (nothing more is sent), or, when
    ///   changes remain that could not be sent, the last error they got.
    public func sendChanges() async throws {
        var context = SendContext()
        let maxRounds = configuration.maxConflictRetries + configuration.retry.maxRetries + 3
        for _ in 0..<maxRounds {
            let pending = try store.pendingChanges()
            if pending.isEmpty { return }
            context.needsAnotherRound = false
            try await sendZoneDeletions(pending, &context)
            try await sendZoneSaves(try store.pendingChanges(), &context)
            try await sendRecordChanges(try store.pendingChanges(), &context)
            if !context.needsAnotherRound { break }
            if let (error, attempt) = context.itemRetry {
                // Items failed for a passing reason: wait as the server (or the back-off) says, then send them again.
                context.itemRetry = nil
                await waitBeforeRetry(error, operation: "records/modify", scope: nil, zoneID: error.zoneID, attempt: attempt)
            }
        }
        let remaining = try store.pendingChanges()
        if !remaining.isEmpty, let error = context.lastError {
            throw error
        } else if !remaining.isEmpty, context.needsAnotherRound {
            throw CloudError(
                .serverRecordChanged,
                "\(remaining.count) local change\(remaining.count == 1 ? "" : "s") could not be sent: the server's records kept changing. They stay queued; send again later.")
        }
    }

    struct SendContext {
        var needsAnotherRound = false
        var lastError: (any Error)?
        var conflictCounts: [PendingChange.Key: Int] = [:]
        /// Zones this call already refetched after the server said they were not found.
        var refetchedForMissingZone: Set<TokenCache.ZoneKey> = []
        /// Retries so far of each change whose item failed for a passing reason.
        var itemRetries: [PendingChange.Key: Int] = [:]
        /// The item failure to wait for before the next round, with its attempt number.
        var itemRetry: (CloudError, Int)?

        /// Notes an item that failed for a passing reason; true when it may be sent again in this call.
        mutating func retryItem(_ key: PendingChange.Key, _ error: CloudError, maxRetries: Int) -> Bool {
            let attempt = itemRetries[key, default: 0] + 1
            guard attempt <= maxRetries else { return false }
            itemRetries[key] = attempt
            if let (current, currentAttempt) = itemRetry {
                if attempt > currentAttempt || (error.retryAfter ?? 0) > (current.retryAfter ?? 0) { itemRetry = (error, attempt) }
            } else {
                itemRetry = (error, attempt)
            }
            return true
        }
    }

    /// Item failures that leave the change queued (sent again later).
    private static func isRetryable(_ code: CloudError.Code) -> Bool {
        switch code {
        case .networkFailure, .internalError, .batchRequestFailed, .requestRateLimited, .zoneBusy, .serviceUnavailable, .quotaExceeded: true
        default: false
        }
    }

    private func chunks<T>(_ items: [T]) -> [ArraySlice<T>] {
        let size = max(1, configuration.maxOperationsPerRequest)
        return stride(from: 0, to: items.count, by: size).map { items[$0..<min($0 + size, items.count)] }
    }

    // MARK: Zones

    private func sendZoneDeletions(_ pending: [PendingChange], _ context: inout SendContext) async throws {
        let deletions = pending.filter { $0.kind == .deleteZone && $0.scope == .private }.sorted { $0.zoneID < $1.zoneID }
        for chunk in chunks(deletions) {
            let ids = chunk.map(\.zoneID)
            let results: [Result<RecordZone, CloudError>]
            do {
                results = try await withRetries("zones/modify", scope: .private) {
                    try await service.modifyRecordZones(in: .private, saving: [], deleting: ids)
                }
            } catch {
                emit(.error(SyncErrorReport(operation: "zones/modify", scope: .private, error: error)))
                throw error
            }
            var batch = StoreBatch(scope: .private)
            var deleted: [RecordZoneID] = []
            var dropped: [(PendingChange, String)] = []
            for (change, result) in zip(chunk, results) {
                switch result {
                case .success:
                    deleted.append(change.zoneID)
                case .failure(let error) where error.code == .zoneNotFound || error.code == .userDeletedZone:
                    deleted.append(change.zoneID)  // already gone
                case .failure(let error) where Self.isRetryable(error.code):
                    context.lastError = error
                    emit(.error(SyncErrorReport(operation: "zones/modify", scope: .private, zoneID: change.zoneID, error: error)))
                case .failure(let error):
                    batch.pendingRemovals.append(change.key)
                    dropped.append((change, error.reason))
                    emit(.error(SyncErrorReport(operation: "zones/modify", scope: .private, zoneID: change.zoneID, error: error)))
                }
            }
            for zoneID in deleted {
                // Records saved after the deletion was queued stay queued: they create the zone again.
                batch.zoneRemovals.append(ZoneRemoval(zoneID: zoneID, removeRecords: false, removePendingChanges: false))
                batch.pendingRemovals.append(PendingChange.deleteZone(zoneID).key)
            }
            if !batch.isEmpty { try storeApply(batch) }
            for (change, reason) in dropped { emit(.pendingChangeDropped(change, reason: reason)) }
            if !deleted.isEmpty {
                emit(.zonesSent(scope: .private, saved: [], deleted: deleted))
                for zoneID in deleted {
                    emit(.zoneDeleted(scope: .private, zoneID: zoneID, reason: .deletedLocally, recordsRemoved: 0, pendingChangesDropped: 0))
                }
            }
        }
    }

    private func sendZoneSaves(_ pending: [PendingChange], _ context: inout SendContext) async throws {
        let known = Set(try store.knownZones(in: .private).map(\.zoneID))
        let pendingDeletions = Set(pending.filter { $0.kind == .deleteZone && $0.scope == .private }.map(\.zoneID))
        var zones = Set(pending.filter { $0.kind == .saveZone && $0.scope == .private }.map(\.zoneID))
        for change in pending where change.kind == .saveRecord && change.scope == .private && !known.contains(change.zoneID) {
            zones.insert(change.zoneID)
        }
        // A zone whose deletion could not be sent yet is not created again in this round.
        let toCreate = zones.subtracting(pendingDeletions).sorted()
        let explicit = Set(pending.filter { $0.kind == .saveZone }.map(\.key))
        for chunk in chunks(toCreate) {
            let ids = Array(chunk)
            let results: [Result<RecordZone, CloudError>]
            do {
                results = try await withRetries("zones/modify", scope: .private) {
                    try await service.modifyRecordZones(in: .private, saving: ids, deleting: [])
                }
            } catch {
                emit(.error(SyncErrorReport(operation: "zones/modify", scope: .private, error: error)))
                throw error
            }
            var batch = StoreBatch(scope: .private)
            var created: [RecordZoneID] = []
            var dropped: [(PendingChange, String)] = []
            for (zoneID, result) in zip(ids, results) {
                switch result {
                case .success(let zone):
                    created.append(zone.zoneID)
                    batch.zonesConfirmed.append(zone.zoneID)
                    let key = PendingChange.saveZone(zoneID).key
                    if explicit.contains(key) { batch.pendingRemovals.append(key) }
                case .failure(let error) where Self.isRetryable(error.code):
                    context.lastError = error
                    emit(.error(SyncErrorReport(operation: "zones/modify", scope: .private, zoneID: zoneID, error: error)))
                case .failure(let error):
                    // The zone cannot be created: nothing queued for it can be sent.
                    emit(.error(SyncErrorReport(operation: "zones/modify", scope: .private, zoneID: zoneID, error: error)))
                    for change in pending where change.scope == .private && change.zoneID == zoneID && change.kind != .deleteZone {
                        batch.pendingRemovals.append(change.key)
                        dropped.append((change, error.reason))
                    }
                }
            }
            if !batch.isEmpty { try storeApply(batch) }
            for (change, reason) in dropped { emit(.pendingChangeDropped(change, reason: reason)) }
            if !created.isEmpty { emit(.zonesSent(scope: .private, saved: created, deleted: [])) }
        }
    }

    // MARK: Records

    private func sendRecordChanges(_ pending: [PendingChange], _ context: inout SendContext) async throws {
        var groups: [TokenCache.ZoneKey: [PendingChange]] = [:]
        for change in pending where change.isRecordChange {
            groups[TokenCache.ZoneKey(scope: change.scope, zoneID: change.zoneID), default: []].append(change)
        }
        let pendingZoneDeletions = Set(pending.filter { $0.kind == .deleteZone }.map { TokenCache.ZoneKey(scope: $0.scope, zoneID: $0.zoneID) })
        let knownPrivate = Set(try store.knownZones(in: .private).map(\.zoneID))
        for group in groups.keys.sorted() {
            // Not sent before its zone's pending deletion, nor into a zone that could not be created.
            if pendingZoneDeletions.contains(group) { continue }
            if group.scope == .private && !knownPrivate.contains(group.zoneID) { continue }
            let changes = (groups[group] ?? []).sorted { ($0.recordName ?? "") < ($1.recordName ?? "") }
            for chunk in chunks(changes) {
                let stop = try await sendRecordChunk(Array(chunk), scope: group.scope, zoneID: group.zoneID, &context)
                if stop { break }
            }
        }
    }

    /// Whether the server's record (from a conflict) already holds what this
    /// save sends: then an earlier attempt whose answer was lost was applied.
    static func serverHas(_ server: Record?, whatWasSent local: Record?, for change: PendingChange) -> Bool {
        guard let server, let local else { return false }
        let sent = outgoing(local, for: change)
        if change.savePolicy == .changedKeys {
            return sent.fields.names.allSatisfy { server[$0] == sent[$0] }
        }
        return server.fields == sent.fields && (sent.recordType.isEmpty || server.recordType == sent.recordType)
    }

    /// The record a save sends: all of it, or for `.changedKeys` only the changed fields.
    static func outgoing(_ local: Record, for change: PendingChange) -> Record {
        guard change.savePolicy == .changedKeys else { return local }
        var record = local
        record.fields = local.fields.filtered(to: change.changedKeys)
        return record
    }

    /// Sends one request; returns true when the rest of the zone should wait.
    private func sendRecordChunk(
        _ changes: [PendingChange], scope: DatabaseScope, zoneID: RecordZoneID, _ context: inout SendContext
    ) async throws -> Bool {
        var operations: [RecordOperation] = []
        var sent: [(PendingChange, Record?)] = []
        var orphaned = StoreBatch(scope: scope)
        for change in changes {
            guard let recordID = change.recordID else { continue }
            if change.kind == .saveRecord {
                guard let local = try store.record(recordID, in: scope) else {
                    orphaned.pendingRemovals.append(change.key)
                    continue
                }
                operations.append(.save(Self.outgoing(local, for: change), policy: change.savePolicy))
                sent.append((change, local))
            } else {
                operations.append(.delete(recordID, recordType: change.recordType))
                sent.append((change, nil))
            }
        }
        if !orphaned.isEmpty { try storeApply(orphaned) }
        if operations.isEmpty { return false }

        let results: [Result<RecordOperationResult, CloudError>]
        do {
            results = try await withRetries("records/modify", scope: scope, zoneID: zoneID) {
                try await service.modifyRecords(in: scope, zoneID: zoneID, operations: operations, atomic: false, clientChangeTokenData: nil)
            }
        } catch let error as CloudError where error.code == .zoneNotFound || error.code == .userDeletedZone {
            try await handleMissingZone(error, scope: scope, zoneID: zoneID, &context)
            return true
        } catch {
            emit(.error(SyncErrorReport(operation: "records/modify", scope: scope, zoneID: zoneID, error: error)))
            throw error
        }

        var batch = StoreBatch(scope: scope)
        var savedIDs: [RecordID] = []
        var deletedIDs: [RecordID] = []
        var events: [SyncEvent] = []
        for ((change, local), result) in zip(sent, results) {
            guard let recordID = change.recordID else { continue }
            switch result {
            case .success(.saved(let record)):
                batch.savedRecords.append(record)
                batch.pendingRemovals.append(change.key)
                savedIDs.append(recordID)
            case .success(.deleted):
                batch.pendingRemovals.append(change.key)
                deletedIDs.append(recordID)
            case .failure(let error) where error.code == .serverRecordChanged && change.kind == .saveRecord
                && Self.serverHas(error.serverRecord, whatWasSent: local, for: change):
                // A resend after a lost answer: the first attempt was applied.
                guard let server = error.serverRecord else { continue }
                batch.savedRecords.append(server)
                batch.pendingRemovals.append(change.key)
                savedIDs.append(recordID)
                events.append(.ambiguousCommitResolved(scope: scope, recordID: recordID))
            case .failure(let error) where error.code == .serverRecordChanged && change.kind == .saveRecord:
                let count = context.conflictCounts[change.key, default: 0] + 1
                context.conflictCounts[change.key] = count
                guard let server = error.serverRecord, count <= configuration.maxConflictRetries else {
                    context.lastError = error
                    events.append(.error(SyncErrorReport(operation: "records/modify", scope: scope, zoneID: zoneID, recordID: recordID, error: error)))
                    continue
                }
                var merged = server
                for name in change.changedKeys { merged[name] = local?[name] }
                batch.savedRecords.append(merged)
                context.needsAnotherRound = true
                events.append(.conflictMerged(scope: scope, recordID: recordID, serverChangeTag: server.recordChangeTag, mergedKeys: change.changedKeys))
            case .failure(let error) where error.code == .unknownItem:
                batch.pendingRemovals.append(change.key)
                if change.kind == .saveRecord {
                    // The server deleted the record meanwhile: the deletion wins.
                    batch.deletedRecordIDs.append(recordID)
                    events.append(.pendingChangeDropped(change, reason: "The record was deleted on the server before this change was sent."))
                } else {
                    deletedIDs.append(recordID)  // already gone
                }
            case .failure(let error) where Self.isRetryable(error.code):
                context.lastError = error
                if error.code == .batchRequestFailed {
                    context.needsAnotherRound = true
                } else if error.isTransient, context.retryItem(change.key, error, maxRetries: configuration.retry.maxRetries) {
                    context.needsAnotherRound = true
                }
                events.append(.error(SyncErrorReport(operation: "records/modify", scope: scope, zoneID: zoneID, recordID: recordID, error: error)))
            case .failure(let error):
                batch.pendingRemovals.append(change.key)
                events.append(.error(SyncErrorReport(operation: "records/modify", scope: scope, zoneID: zoneID, recordID: recordID, error: error)))
                events.append(.pendingChangeDropped(change, reason: error.reason))
            }
        }
        if !savedIDs.isEmpty || !deletedIDs.isEmpty {
            // The zone exists: remember it, so that a later full refetch that
            // no longer lists it (deleted, or no longer shared) removes these records.
            batch.zonesConfirmed.append(zoneID)
        }
        if !batch.isEmpty { try storeApply(batch) }
        if !savedIDs.isEmpty || !deletedIDs.isEmpty {
            emit(.changesSent(scope: scope, zoneID: zoneID, saved: savedIDs, deleted: deletedIDs))
        }
        for event in events { emit(event) }
        return false
    }

    /// The server does not have the zone the changes are for. Fetch the
    /// database's changes first: they say why (deleted: the local changes go;
    /// encrypted-data reset: everything is queued again; purged: wiped). If
    /// the zone is still missing after that, it is dropped locally.
    private func handleMissingZone(_ error: CloudError, scope: DatabaseScope, zoneID: RecordZoneID, _ context: inout SendContext) async throws {
        emit(.error(SyncErrorReport(operation: "records/modify", scope: scope, zoneID: zoneID, error: error)))
        let key = TokenCache.ZoneKey(scope: scope, zoneID: zoneID)
        context.needsAnotherRound = true
        if error.code == .zoneNotFound, !context.refetchedForMissingZone.contains(key) {
            context.refetchedForMissingZone.insert(key)
            try await fetchChanges(scopes: [scope], resultsLimit: nil, budget: BatchBudget(limit: nil))
            return
        }
        let count = try store.recordCount(in: scope, zoneID: zoneID)
        let dropped = try store.pendingChanges().count { $0.scope == scope && $0.zoneID == zoneID }
        var batch = StoreBatch(scope: scope)
        batch.zoneRemovals = [ZoneRemoval(zoneID: zoneID)]
        if error.code == .userDeletedZone {
            batch.purgedZonesAdded = [zoneID]
            try storeApply(batch)
            emit(.zonePurged(scope: scope, zoneID: zoneID, recordsRemoved: count, pendingChangesDropped: dropped))
        } else {
            try storeApply(batch)
            emit(.zoneDeleted(scope: scope, zoneID: zoneID, reason: .zoneNotFound, recordsRemoved: count, pendingChangesDropped: dropped))
        }
    }
}
