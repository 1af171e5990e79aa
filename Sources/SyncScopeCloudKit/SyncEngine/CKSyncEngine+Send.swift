import Foundation
import SyncCore

extension CKSyncEngine {
    /// One send: the pending zone changes, then batches of record changes from the delegate.
    func send(_ options: SendChangesOptions, reason: SyncReason) async throws(CKError) {
        let link = try await prepare()
        await emitStateUpdateIfChanged()
        let context = SendChangesContext(reason: reason, options: options)
        await deliver(.willSendChanges(Event.WillSendChanges(context: context)))
        var failures: [AnyHashable: any Error] = [:]
        var thrown: CKError?
        var retryLater = false
        do {
            try await sendDatabaseChanges(options, link, failures: &failures)
            retryLater = try await sendRecordZoneChanges(options, reason: reason, link, failures: &failures)
        } catch {
            thrown = error
            retryLater = Self.retries(error.code)
        }
        await deliver(.didSendChanges(Event.DidSendChanges(context: context)))
        await emitStateUpdateIfChanged()
        if retryLater { scheduleRetryAfterSend() }
        if let thrown { throw thrown }
        if !failures.isEmpty { throw CKError.partial(failures, "send changes") }
    }

    private func scheduleRetryAfterSend() {
        scheduleSendRetry(after: Self.backOff(nil, attempt: 2))
    }

    /// The pending zone saves and deletions in scope, in one request.
    private func sendDatabaseChanges(_ options: SendChangesOptions, _ link: DeviceLink, failures: inout [AnyHashable: any Error]) async throws(CKError) {
        let pending = state.pendingDatabaseChanges.filter(options.scope.contains)
        guard !pending.isEmpty else { return }
        var saves: [CKRecordZone] = []
        var deletes: [CKRecordZone.ID] = []
        for change in pending {
            switch change {
            case .saveZone(let zone): saves.append(zone)
            case .deleteZone(let id): deletes.append(id)
            }
        }
        let outcome = try await retrying { () async throws(CKError) in try await database.modifyRecordZones(saving: saves, deleting: deletes, via: link) }
        let savedZones = SentOutcome(outcome.saves, failures: &failures)
        let deletedZones = SentOutcome(outcome.deletes, failures: &failures)
        let zone = { (id: CKRecordZone.ID) in saves.first { $0.zoneID == id } ?? CKRecordZone(zoneID: id) }
        let saved = savedZones.succeeded.map { zone($0.0) }
        let failedSaves = savedZones.failed.map { Event.SentDatabaseChanges.FailedZoneSave(zone: zone($0.0), error: $0.1) }
        let deleted = deletedZones.succeeded.map(\.0)
        let failedDeletes = Dictionary(deletedZones.failed, uniquingKeysWith: { first, _ in first })
        let doneKeys = Set(savedZones.done.map { State.key(.saveZone(zone($0))) } + deletedZones.done.map { State.key(.deleteZone($0)) })
        state.update { s in
            s.pendingDatabaseChanges.removeAll(where: doneKeys.contains)
            for id in deleted {
                let key = State.ZoneKey(id)
                s.zoneTokens.removeAll { $0.zone == key }
                s.unfetchedZones.removeAll { $0 == key }
            }
        }
        await deliver(
            .sentDatabaseChanges(
                Event.SentDatabaseChanges(savedZones: saved, failedZoneSaves: failedSaves, deletedZoneIDs: deleted, failedZoneDeletes: failedDeletes)))
        await emitStateUpdate()
    }

    /// Batches from the delegate until it has none (or only changes already tried in this
    /// round); changes that failed with a retryable error stay pending and get another round
    /// after a back-off. Returns whether some are still waiting for a retry.
    private func sendRecordZoneChanges(
        _ options: SendChangesOptions, reason: SyncReason, _ link: DeviceLink, failures: inout [AnyHashable: any Error]
    ) async throws(CKError) -> Bool {
        var round = 0
        while true {
            let retryable = try await sendRound(options, reason: reason, link, failures: &failures)
            if retryable.isEmpty { return false }
            round += 1
            if round >= Self.maximumAttempts { return true }
            try checkCancelled()
            await backEnd.wait(milliseconds: Self.backOff(retryable.first, attempt: round - 1))
        }
    }

    /// One round of batches; returns the retryable errors of changes left pending.
    private func sendRound(
        _ options: SendChangesOptions, reason: SyncReason, _ link: DeviceLink, failures: inout [AnyHashable: any Error]
    ) async throws(CKError) -> [CKError] {
        var attempted = Set<PendingRecordZoneChange>()
        var retryable: [CKError] = []
        var batchOptions = options
        while true {
            try checkCancelled()
            let hasWork = !state.pendingRecordZoneChanges.filter(batchOptions.scope.contains).isEmpty || state.hasPendingUntrackedChanges
            guard hasWork, let delegate else { break }
            let context = SendChangesContext(reason: reason, options: batchOptions)
            guard let batch = await delegate.nextRecordZoneChangeBatch(context, syncEngine: self) else {
                state.update { $0.hasPendingUntrackedChanges = false }
                break
            }
            let saves = batch.recordsToSave.filter { !attempted.contains(.saveRecord($0.recordID)) }
            let deletes = batch.recordIDsToDelete.filter { !attempted.contains(.deleteRecord($0)) }
            if saves.isEmpty && deletes.isEmpty { break }
            attempted.formUnion(saves.map { .saveRecord($0.recordID) } + deletes.map { .deleteRecord($0) })

            let outcome = try await retrying { () async throws(CKError) in
                try await database.modifyRecords(
                    saving: saves, deleting: deletes, savePolicy: .ifServerRecordUnchanged, atomically: batch.atomicByZone, via: link)
            }
            let savedRecords = SentOutcome(outcome.saves, failures: &failures)
            let deletedRecords = SentOutcome(outcome.deletes, failures: &failures)
            retryable += savedRecords.retryable + deletedRecords.retryable
            let saved = savedRecords.succeeded.map(\.1)
            let failedSaves = savedRecords.failed.map { id, error in
                Event.SentRecordZoneChanges.FailedRecordSave(record: saves.first { $0.recordID == id } ?? CKRecord(recordType: "", recordID: id), error: error)
            }
            let deleted = deletedRecords.succeeded.map(\.0)
            let failedDeletes = Dictionary(deletedRecords.failed, uniquingKeysWith: { first, _ in first })
            let doneKeys = Set(savedRecords.done.map { State.key(.saveRecord($0)) } + deletedRecords.done.map { State.key(.deleteRecord($0)) })
            state.update { $0.pendingRecordZoneChanges.removeAll(where: doneKeys.contains) }
            await deliver(
                .sentRecordZoneChanges(
                    Event.SentRecordZoneChanges(
                        savedRecords: saved, failedRecordSaves: failedSaves, deletedRecordIDs: deleted, failedRecordDeletes: failedDeletes)))
            await emitStateUpdate()

            let remaining = state.pendingRecordZoneChanges.filter { options.scope.contains($0) && !attempted.contains($0) }
            if remaining.isEmpty { break }
            batchOptions = SendChangesOptions(scope: .recordIDs(remaining.map(\.recordID)))
        }
        return retryable
    }

    /// Item errors after which the engine keeps the change pending and sends it again itself:
    /// the retryable ones, and `batchRequestFailed` (another item of an atomic batch failed).
    static func keepsPending(_ code: CKError.Code) -> Bool {
        retries(code) || code == .batchRequestFailed
    }
}
