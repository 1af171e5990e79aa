import SyncCore

/// One device's sync engine, modelled on `CKSyncEngine`: it fetches the
/// server's changes into the device's ``LocalStore`` and sends the device's
/// queued local changes.
///
/// Fetching: for each configured scope, `changes/database` from the cached
/// database token (every batch's zone list and token stored together), then
/// `changes/zone` for the zones that changed, each batch's records and token
/// written in one store transaction — so an interrupted fetch resumes from
/// the last batch it stored, never skipping data.
///
/// Local changes (``save(_:savePolicy:)``, ``delete(_:)``, ``saveZone(_:)``,
/// ``deleteZone(_:)``) are written to the cache at once and queued in the
/// store; ``sendChanges()`` sends them, merging the local changed fields into
/// the server's record on a conflict.
///
/// Push: ``notificationReceived(_:)``, ``cameOnline()`` and ``scheduleFetch()``
/// schedule a fetch and ``runScheduledFetches(resultsLimit:)`` runs it (see
/// `DeviceSyncEngine+Push.swift`); a notification is only ever a hint that
/// something changed, the data always comes from the fetch.
///
/// Not thread-safe: use it from one task. Every step is reported to
/// `eventHandler` as a ``SyncEvent``.
public final class DeviceSyncEngine {
    public struct Configuration: Sendable, Hashable {
        /// The databases to sync (the public database has no change fetching).
        public var scopes: [DatabaseScope]
        /// Most changes per fetched batch; `nil`: the server's cap.
        public var resultsLimit: Int?
        /// How many times one `sendChanges()` merges and resends a record the server keeps changing.
        public var maxConflictRetries: Int
        /// Most items per `records/modify` or `zones/modify` request.
        public var maxOperationsPerRequest: Int
        /// How requests that failed for a passing reason are retried (see `DeviceSyncEngine+Retry.swift`).
        public var retry: RetryPolicy
        /// Seeds the retry jitter (mixed with the device ID), so a world's seed replays it.
        public var retrySeed: UInt64

        public init(
            scopes: [DatabaseScope] = [.private, .shared], resultsLimit: Int? = nil, maxConflictRetries: Int = 5,
            maxOperationsPerRequest: Int = 400, retry: RetryPolicy = .standard, retrySeed: UInt64 = 0
        ) {
            self.scopes = scopes
            self.resultsLimit = resultsLimit
            self.maxConflictRetries = maxConflictRetries
            self.maxOperationsPerRequest = maxOperationsPerRequest
            self.retry = retry
            self.retrySeed = retrySeed
        }
    }

    public let service: any CloudService
    public let store: any LocalStore
    public let clock: any SyncClock
    public let configuration: Configuration
    let eventHandler: (SyncEvent) -> Void

    // MARK: Push-triggered fetching (the API is in DeviceSyncEngine+Push.swift)

    /// Default true. When false, notifications are recorded (event) but schedule nothing.
    public var autoFetchOnPush = true
    /// The fetch waiting to run; while a fetch runs, the one follow-up.
    var scheduledFetch: ScheduledFetch?
    /// Whether ``runScheduledFetches(resultsLimit:)`` is in a fetch run now.
    public internal(set) var isFetching = false
    /// Every fetch run so far, newest last.
    public internal(set) var fetchRuns: [FetchRun] = []
    /// Records saved and deleted locally so far by the running fetch run.
    var changesAppliedInRun = 0

    // MARK: Retrying (DeviceSyncEngine+Retry.swift)

    /// The source of retry jitter.
    var retryRandom: SeededRandom
    /// Lets a wait before a retry pass; `nil`: a virtual clock moves, the wall clock sleeps.
    public var waitHandler: ((Milliseconds) async -> Void)?

    public init(
        service: any CloudService,
        store: any LocalStore,
        clock: any SyncClock,
        configuration: Configuration = Configuration(),
        eventHandler: @escaping (SyncEvent) -> Void = { _ in }
    ) {
        self.service = service
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.eventHandler = eventHandler
        retryRandom = SeededRandom(seed: Self.jitterSeed(configuration.retrySeed, deviceID: service.deviceID))
    }

    func emit(_ event: SyncEvent) {
        if isFetching {
            switch event {
            case .recordsApplied(_, _, let saved, let deleted, _): changesAppliedInRun += saved + deleted
            case .zoneDeleted(_, _, _, let removed, _), .zonePurged(_, _, let removed, _): changesAppliedInRun += removed
            default: break
            }
        }
        eventHandler(event)
    }

    /// The database a zone lives in for this user: their own zones are in the
    /// private database, zones other users share with them in the shared one.
    public func scope(of zoneID: RecordZoneID) -> DatabaseScope {
        let owner = zoneID.ownerName
        return owner == service.userRecordName || owner.isEmpty || owner == RecordZoneID.currentUserName ? .private : .shared
    }

    /// The zone ID with the owner spelled out (`__defaultOwner__` or empty → this user).
    func normalized(_ zoneID: RecordZoneID) -> RecordZoneID {
        if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName {
            return RecordZoneID(zoneName: zoneID.zoneName, ownerName: service.userRecordName)
        }
        return zoneID
    }

    func normalized(_ recordID: RecordID) -> RecordID {
        RecordID(recordName: recordID.recordName, zoneID: normalized(recordID.zoneID))
    }

    // MARK: Reading the cache

    public func record(_ recordID: RecordID) throws -> Record? {
        let id = normalized(recordID)
        return try store.record(id, in: scope(of: id.zoneID))
    }

    public func records(in zoneID: RecordZoneID) throws -> [Record] {
        let id = normalized(zoneID)
        return try store.records(in: scope(of: id), zoneID: id)
    }

    /// How many records the store holds for a zone.
    public func recordCount(in zoneID: RecordZoneID) throws -> Int {
        let id = normalized(zoneID)
        return try store.recordCount(in: scope(of: id), zoneID: id)
    }

    /// The record at `offset` in ``records(in:)``'s order (by record name), or nil past the end.
    public func record(atOffset offset: Int, in zoneID: RecordZoneID) throws -> Record? {
        let id = normalized(zoneID)
        return try store.record(atOffset: offset, in: scope(of: id), zoneID: id)
    }

    public func pendingChanges() throws -> [PendingChange] {
        try store.pendingChanges()
    }

    // MARK: Local changes

    /// Saves a record locally and queues it for sending. Only the fields that
    /// differ from the cached copy count as changed (they win a conflict);
    /// the change tag comes from the cache, not from `record`.
    ///
    /// `savePolicy` is how ``sendChanges()`` sends this save (the newest
    /// save of a record decides): `.ifServerRecordUnchanged` checks the change
    /// tag and merges on a conflict; `.changedKeys` writes only the changed
    /// fields over the server's record and `.allKeys` replaces all of its
    /// fields, whatever its change tag, so these never conflict. A field
    /// removed locally is not removed on the server by `.changedKeys` (the
    /// request can only set fields).
    public func save(_ record: Record, savePolicy: RecordSavePolicy = .ifServerRecordUnchanged) throws {
        let recordID = normalized(record.recordID)
        let zoneID = recordID.zoneID
        try checkSyncable(zoneID)
        let scope = scope(of: zoneID)
        if try store.purgedZones(in: scope).contains(zoneID) {
            throw CloudError(
                .userDeletedZone,
                "Zone '\(zoneID.zoneName)' was purged: the user deleted this app's data in Settings, so it is not uploaded again. Call saveZone only if the user asks to sync it again.",
                recordName: recordID.recordName, zoneID: zoneID)
        }
        let cached = try store.record(recordID, in: scope)
        if let cached, !record.recordType.isEmpty, cached.recordType != record.recordType {
            throw CloudError(
                .invalidArguments,
                "Record '\(recordID.recordName)' is a '\(cached.recordType)'; it cannot be saved as a '\(record.recordType)'.",
                recordName: recordID.recordName, zoneID: zoneID)
        }
        let pendingKey = PendingChange.recordKey(recordID, scope: scope)
        let existing = try store.pendingChanges().first { $0.key == pendingKey }
        var changed = Set<String>()
        if let cached {
            for name in Set(cached.fields.names).union(record.fields.names) where cached[name] != record[name] {
                changed.insert(name)
            }
        } else {
            changed = Set(record.fields.names)
        }
        if let existing, existing.kind == .saveRecord { changed.formUnion(existing.changedKeys) }
        if changed.isEmpty, cached != nil, existing?.kind != .deleteRecord, existing.map({ $0.savePolicy == savePolicy }) ?? true { return }

        var local = record
        local.recordID = recordID
        local.recordType = record.recordType.isEmpty ? (cached?.recordType ?? "") : record.recordType
        local.recordChangeTag = cached?.recordChangeTag
        local.created = cached?.created
        local.modified = cached?.modified
        var batch = StoreBatch(scope: scope)
        batch.savedRecords = [local]
        // New only if nothing about it ever came from (or went to) the server.
        let isNew = existing.map(\.isNewRecord) ?? (cached == nil)
        let change = PendingChange.saveRecord(
            recordID, recordType: local.recordType, changedKeys: Array(changed), scope: scope, isNewRecord: isNew, savePolicy: savePolicy)
        batch.pendingUpserts = [change]
        try store.apply(batch)
        emit(.changeQueued(change))
    }

    /// Deletes a record locally and queues the deletion. A record that was
    /// never sent is simply forgotten.
    public func delete(_ recordID: RecordID) throws {
        let recordID = normalized(recordID)
        try checkSyncable(recordID.zoneID)
        let scope = scope(of: recordID.zoneID)
        let cached = try store.record(recordID, in: scope)
        let pendingKey = PendingChange.recordKey(recordID, scope: scope)
        let existing = try store.pendingChanges().first { $0.key == pendingKey }
        var batch = StoreBatch(scope: scope)
        batch.deletedRecordIDs = [recordID]
        if let existing, existing.isNewRecord, cached?.recordChangeTag == nil {
            batch.pendingRemovals = [pendingKey]
            try store.apply(batch)
            emit(.pendingChangeDropped(existing, reason: "The record was deleted before it was ever sent."))
            return
        }
        let change = PendingChange.deleteRecord(recordID, recordType: cached?.recordType ?? existing?.recordType ?? "", scope: scope)
        batch.pendingUpserts = [change]
        try store.apply(batch)
        emit(.changeQueued(change))
    }

    /// Queues the creation of one of this user's zones (records saved into an
    /// unknown zone create it anyway). Clears a purge: the user asked to sync it again.
    public func saveZone(_ zoneID: RecordZoneID) throws {
        let zoneID = normalized(zoneID)
        try checkOwnZone(zoneID, action: "create")
        var batch = StoreBatch(scope: .private)
        let change = PendingChange.saveZone(zoneID)
        batch.pendingUpserts = [change]
        batch.purgedZonesRemoved = [zoneID]
        try store.apply(batch)
        emit(.changeQueued(change))
    }

    /// Deletes one of this user's zones locally (its records and pending
    /// changes go at once) and queues the deletion.
    public func deleteZone(_ zoneID: RecordZoneID) throws {
        let zoneID = normalized(zoneID)
        try checkOwnZone(zoneID, action: "delete")
        var batch = StoreBatch(scope: .private)
        batch.zoneRemovals = [ZoneRemoval(zoneID: zoneID)]
        let change = PendingChange.deleteZone(zoneID)
        batch.pendingUpserts = [change]
        try store.apply(batch)
        emit(.changeQueued(change))
    }

    private func checkSyncable(_ zoneID: RecordZoneID) throws {
        guard !zoneID.isDefaultZone else {
            throw CloudError(
                .invalidArguments,
                "The default zone does not support change fetching, so the sync engine cannot keep it in sync; save records in a custom zone.",
                zoneID: zoneID)
        }
    }

    private func checkOwnZone(_ zoneID: RecordZoneID, action: String) throws {
        try checkSyncable(zoneID)
        guard scope(of: zoneID) == .private else {
            throw CloudError(
                .permissionFailure,
                "Zone '\(zoneID.zoneName)' belongs to \(zoneID.ownerName); only the owner can \(action) it.", zoneID: zoneID)
        }
    }
}
