import SyncCore
import SyncClient
import SyncScenario
import SyncSimulation
import SyncWorlds

/// Runs a scenario's `fetch` step on one device: database changes or zone
/// changes, from the token the step chooses (cached, none, or captured), one
/// batch or all of them, maybe interrupted after some batches.
///
/// Each batch is stored the way ``DeviceSyncEngine`` stores it — the batch's
/// records (with the device's pending local edits laid over them), its
/// deletions and its token in one transaction; a fetch from no token marks
/// what the device has as stale and removes what the full answer does not
/// return — so a scenario can take the engine's place for one fetch and the
/// engine carries on from there. Unlike the engine, it does not recover from
/// errors (an expired token is the step's error): showing them is the point.
///
/// It asks through the device's connection, so the runner's
/// ``FetchObserver`` shows each batch as it arrives; this reports only what
/// storing a batch did.
///
/// Its tokens are not in the device's `tokenHistory`: that history is what
/// the device's engine received (its `tokenReceived` events), and the engine
/// has no way to run this fetch — it always starts from its cached tokens,
/// fetches every zone that changed, with no `desiredKeys`, and stores every
/// batch it asks for.
struct ScenarioFetcher {
    let device: SyncDevice
    /// The connection of the account signed in on the device.
    let connection: any CloudService
    /// The engine whose way of storing batches the fetch follows.
    let engine: DeviceSyncEngine
    /// Called with notes worth a transcript line.
    let report: (TranscriptEvent.Kind) -> Void

    struct Limits {
        var resultsLimit: Int?
        var fetchAllChanges = true
        var interruptAfter: Int?
        var crash: FetchCrash?

        /// Whether to ask for another batch after `received` of them.
        func wantsMore(afterBatches received: Int, moreComing: Bool) -> Bool {
            guard moreComing, fetchAllChanges else { return false }
            if let interruptAfter, received >= interruptAfter { return false }
            return true
        }
    }

    var store: any LocalStore { device.store }

    private func name(_ zoneID: RecordZoneID, _ scope: DatabaseScope) -> String {
        TranscriptFormatter.zoneName(zoneID, scope: scope)
    }

    /// `1 cached record`, `3 cached records`.
    private func records(_ count: Int) -> String {
        count == 1 ? "1 cached record" : "\(count) cached records"
    }

    // MARK: Database changes

    /// Fetches a database's changes from `token`, storing each batch.
    /// Returns what came back and the last token stored.
    func fetchDatabaseChanges(
        scope: DatabaseScope, from token: ServerChangeToken?, limits: Limits
    ) async throws -> (FetchSummary, ServerChangeToken?) {
        var summary = FetchSummary(device: device.name)
        let before = try store.databaseToken(for: scope)
        if token == nil {
            var begin = StoreBatch(scope: scope)
            begin.beginDatabaseRefetch = true
            try store.apply(begin)
        }
        var current = token
        while true {
            let batch = try await connection.fetchDatabaseChanges(in: scope, since: current, resultsLimit: limits.resultsLimit)
            let notes = try applyDatabaseBatch(batch, scope: scope)
            for note in notes { report(.note(device: device.name, note)) }
            summary.batches += 1
            for change in batch.changes {
                switch change {
                case .zoneChanged(let zoneID): summary.zones.append(zoneID)
                case .zoneRemoved(let zoneID, let reason): summary.deletedZones.append(RemovedZone(zoneID: zoneID, reason: reason))
                }
            }
            summary.moreComing = batch.moreComing
            current = batch.serverChangeToken
            guard limits.wantsMore(afterBatches: summary.batches, moreComing: batch.moreComing) else { break }
        }
        if batchesInterrupted(summary, limits) {
            report(.note(device: device.name, "fetch interrupted after \(summary.batches) batches, as if the app were killed"))
        }
        summary.tokenChanged = try store.databaseToken(for: scope) != before
        return (summary, current)
    }

    private func batchesInterrupted(_ summary: FetchSummary, _ limits: Limits) -> Bool {
        guard let interruptAfter = limits.interruptAfter else { return false }
        return summary.moreComing && limits.fetchAllChanges && summary.batches >= interruptAfter
    }

    /// Stores a `changes/database` batch exactly as the engine does
    /// (``DeviceSyncEngine/storeBatch(forDatabaseChanges:scope:token:moreComing:)``).
    /// Returns notes on what it did, for the transcript.
    private func applyDatabaseBatch(_ answer: DatabaseChangesBatch, scope: DatabaseScope) throws -> [String] {
        let (batch, events) = try engine.storeBatch(
            forDatabaseChanges: answer.changes, scope: scope, token: answer.serverChangeToken, moreComing: answer.moreComing)
        try store.apply(batch)
        return events.compactMap { event -> String? in
            switch event {
            case .zoneDeleted(_, let zoneID, .missingFromRefetch, _, _):
                "zone \(name(zoneID, scope)) is no longer on the server: dropped it"
            case .zoneDeleted(_, let zoneID, _, let count, _):
                "zone \(name(zoneID, scope)) deleted: dropped its \(records(count)) and its token"
            case .zonePurged(_, let zoneID, let count, _):
                "zone \(name(zoneID, scope)) purged: dropped its \(records(count)); it will not be uploaded again"
            case .zoneEncryptedDataReset(_, let zoneID, let count):
                "zone \(name(zoneID, scope)) lost in an encrypted-data reset: kept its \(records(count)) and queued them for upload"
            default:
                nil
            }
        }
    }

    // MARK: Zone changes

    /// Fetches the changes of each zone from its token, zone after zone,
    /// storing each batch. A zone's error does not stop the others; the
    /// first one is thrown at the end. Returns what came back and each
    /// zone's last stored token.
    func fetchZoneChanges(
        scope: DatabaseScope, zones: [(zoneID: RecordZoneID, token: ServerChangeToken?)], desiredKeys: [String]?, limits: Limits
    ) async throws -> (FetchSummary, [(RecordZoneID, ServerChangeToken)]) {
        var summary = FetchSummary(device: device.name)
        var finalTokens: [(RecordZoneID, ServerChangeToken)] = []
        var firstError: (any Error)?
        var crashed = false
        var tokensBefore: [ServerChangeToken?] = []
        for zone in zones { tokensBefore.append(try store.zoneToken(for: zone.zoneID, in: scope)) }
        zoneLoop: for zone in zones {
            if let interruptAfter = limits.interruptAfter, summary.batches >= interruptAfter { break }
            var current = zone.token
            var began = false
            while true {
                let request = ZoneChangesRequest(
                    zoneID: zone.zoneID, previousServerChangeToken: current, resultsLimit: limits.resultsLimit, desiredKeys: desiredKeys)
                let answer: ZoneChangesBatch
                do {
                    let results = try await connection.fetchRecordZoneChanges(in: scope, [request])
                    guard let result = results.first else {
                        throw CloudError(.internalError, "The server answered a changes/zone request for zone '\(zone.zoneID.zoneName)' with no result.")
                    }
                    answer = try result.get()
                } catch {
                    if firstError == nil { firstError = error }
                    continue zoneLoop
                }
                if zone.token == nil && !began {
                    // A fetch from no token: what the device has is stale until returned.
                    var begin = StoreBatch(scope: scope)
                    begin.beginZoneRefetch = [zone.zoneID]
                    try store.apply(begin)
                    began = true
                }
                if let crash = limits.crash, crash.batch == summary.batches + 1 {
                    try crashWhileStoring(answer, crash: crash, scope: scope)
                    summary.batches += 1
                    summary.moreComing = answer.moreComing
                    crashed = true
                    break zoneLoop
                }
                let notes = try applyZoneBatch(answer, scope: scope, desiredKeys: desiredKeys)
                for note in notes { report(.note(device: device.name, note)) }
                summary.batches += 1
                for change in answer.changes {
                    switch change {
                    case .changed(let record): summary.records.append(record)
                    case .deleted(let recordID, let type): summary.deletions.append(DeletedRecord(recordID: recordID, recordType: type))
                    }
                }
                summary.moreComing = answer.moreComing
                current = answer.serverChangeToken
                guard limits.wantsMore(afterBatches: summary.batches, moreComing: answer.moreComing) else { break }
            }
            if let current { finalTokens.append((zone.zoneID, current)) }
        }
        if !crashed, batchesInterrupted(summary, limits) {
            report(.note(device: device.name, "fetch interrupted after \(summary.batches) batches, as if the app were killed"))
        }
        if let crash = limits.crash, !crashed {
            report(.note(device: device.name, "the fetch ended after \(summary.batches) batch\(summary.batches == 1 ? "" : "es"), before batch \(crash.batch): no crash"))
        }
        for (zone, before) in zip(zones, tokensBefore) where try store.zoneToken(for: zone.zoneID, in: scope) != before {
            summary.tokenChanged = true
        }
        if let firstError { throw firstError }
        return (summary, finalTokens)
    }

    /// The app is killed while it stores `answer`. Storing the token first
    /// (its own write) keeps the token and loses the records; one
    /// transaction for both loses both, so the next fetch asks again.
    private func crashWhileStoring(_ answer: ZoneChangesBatch, crash: FetchCrash, scope: DatabaseScope) throws {
        let count = answer.changes.count
        let what = count == 1 ? "1 change" : "\(count) changes"
        switch crash.storing {
        case .tokenFirst:
            var tokenOnly = StoreBatch(scope: scope)
            tokenOnly.zonesConfirmed = [answer.zoneID]
            tokenOnly.zoneTokens = [ZoneTokenChange(zoneID: answer.zoneID, update: .set(answer.serverChangeToken))]
            try store.apply(tokenOnly)
            report(.note(
                device: device.name,
                "stored batch \(crash.batch)'s token …\(answer.serverChangeToken.shortForm) on its own, then the app was killed before storing its \(what): the token now covers records the device never stored"))
        case .oneTransaction:
            report(.note(
                device: device.name,
                "the app was killed before batch \(crash.batch)'s transaction committed: neither its \(what) nor its token were stored, so the cached token still points before them"))
        }
    }

    /// Stores a `changes/zone` batch exactly as the engine does
    /// (``DeviceSyncEngine/storeBatch(for:zoneID:scope:token:moreComing:)``).
    /// Returns notes on what it did, for the transcript.
    private func applyZoneBatch(_ answer: ZoneChangesBatch, scope: DatabaseScope, desiredKeys: [String]?) throws -> [String] {
        var changes = answer.changes
        if desiredKeys != nil {
            // Only some fields came back: keep the cached values of the others.
            changes = try changes.map { change in
                guard case .changed(var fetched) = change, let cached = try store.record(fetched.recordID, in: scope) else { return change }
                var fields = cached.fields
                for field in fetched.fields { fields[field.name] = field.value }
                fetched.fields = fields
                return .changed(fetched)
            }
        }
        var (batch, events) = try engine.storeBatch(
            for: changes, zoneID: answer.zoneID, scope: scope, token: answer.serverChangeToken, moreComing: answer.moreComing)
        batch.zonesConfirmed.append(answer.zoneID)
        try store.apply(batch)
        return events.compactMap { event -> String? in
            switch event {
            case .pendingChangeDropped(let change, _):
                "dropped the pending save of \(change.recordName ?? "?"): the record was deleted on the server"
            case .vanishedRecordsRemoved(_, _, let ids):
                "reconciled: removed \(ids.map(\.recordName).joined(separator: ", ")), which the full fetch did not return (deleted on the server)"
            default:
                nil
            }
        }
    }
}
