import SyncCore

/// What a ``DeviceSyncEngine`` did, step by step.
public enum SyncEvent: Sendable, Hashable {
    /// A fetch of one database scope began, from this cached database token.
    case fetchStarted(scope: DatabaseScope, databaseToken: ServerChangeToken?)
    /// A batch's token was cached (together with the batch's data).
    case tokenReceived(TokenReceipt)
    /// A zone batch's records were written to the local cache.
    case recordsApplied(scope: DatabaseScope, zoneID: RecordZoneID, saved: Int, deleted: Int, batchIndex: Int)
    /// A zone's local data (records, token, pending changes) was dropped.
    case zoneDeleted(scope: DatabaseScope, zoneID: RecordZoneID, reason: ZoneDropReason, recordsRemoved: Int, pendingChangesDropped: Int)
    /// The user purged the zone: local data and pending changes wiped; it will not be uploaded again.
    case zonePurged(scope: DatabaseScope, zoneID: RecordZoneID, recordsRemoved: Int, pendingChangesDropped: Int)
    /// The user reset their encrypted data: tokens dropped, the zone and its records queued for upload again.
    case zoneEncryptedDataReset(scope: DatabaseScope, zoneID: RecordZoneID, recordsQueuedForUpload: Int)
    /// The server said a token expired; it was dropped and the database or zone is being fetched again from no token.
    case tokenExpired(kind: ChangeTokenKind, scope: DatabaseScope, zoneID: RecordZoneID?)
    /// A full refetch did not return these records: they were removed locally.
    case vanishedRecordsRemoved(scope: DatabaseScope, zoneID: RecordZoneID, recordIDs: [RecordID])
    /// A fetch of one database scope finished.
    case fetchCompleted(scope: DatabaseScope)
    /// The fetch stopped after `stopAfterBatches` batches, as if the app had been killed.
    case fetchInterrupted(afterBatches: Int)
    /// A local change was queued.
    case changeQueued(PendingChange)
    /// Zones were created or deleted on the server.
    case zonesSent(scope: DatabaseScope, saved: [RecordZoneID], deleted: [RecordZoneID])
    /// Records were saved or deleted on the server.
    case changesSent(scope: DatabaseScope, zoneID: RecordZoneID, saved: [RecordID], deleted: [RecordID])
    /// The server had a newer record: the local changed fields were written over it, to be sent again.
    case conflictMerged(scope: DatabaseScope, recordID: RecordID, serverChangeTag: String?, mergedKeys: [String])
    /// A pending change was given up.
    case pendingChangeDropped(PendingChange, reason: String)
    /// A step failed; see the report for what happened next.
    case error(SyncErrorReport)
    /// A request failed for a passing reason: the engine waits (the server's
    /// `retryAfter`, or a back-off) and sends it again.
    case retryScheduled(RetryReport)
    /// A save resent after its answer was lost met a conflict whose server
    /// record is what it sent: the first attempt was applied, so it succeeded.
    case ambiguousCommitResolved(scope: DatabaseScope, recordID: RecordID)
    /// A push notification reached the device. Only its identity is recorded:
    /// the data always comes from a fetch.
    case notificationReceived(notificationID: String, subscriptionID: String, coalescedCount: Int)
    /// A fetch was scheduled (none was waiting): for these notifications, or
    /// none for a manual or came-online fetch. Notifications arriving while it
    /// waits join it without another event.
    case fetchScheduled(reason: FetchReason, notificationIDs: [String])
    /// A scheduled fetch began (`finishedAt` and `succeeded` still `nil`).
    case fetchRunStarted(FetchRun)
    /// A scheduled fetch ended, successfully or not.
    case fetchRunFinished(FetchRun)
}
