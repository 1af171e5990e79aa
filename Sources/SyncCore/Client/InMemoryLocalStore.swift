/// A ``LocalStore`` in memory: for simulations and tests. A batch is applied
/// to a copy of the state, which replaces the state only when the whole
/// batch succeeded, so a failure leaves nothing half-written.
public final class InMemoryLocalStore: LocalStore {
    typealias ZoneKey = TokenCache.ZoneKey

    struct RecordEntry {
        var record: Record
        var isStale: Bool
    }

    struct State {
        var records: [ZoneKey: [String: RecordEntry]] = [:]
        var zones: [ZoneKey: KnownZone] = [:]
        var purged: Set<ZoneKey> = []
        var tokens = TokenCache()
        var pending: [PendingChange.Key: (sequence: Int64, change: PendingChange)] = [:]
        var nextSequence: Int64 = 1
    }

    private var state = State()
    public var faultInjector: ((StoreFaultPoint) throws -> Void)?

    public init() {}

    // MARK: Reading

    public func record(_ recordID: RecordID, in scope: DatabaseScope) throws -> Record? {
        state.records[ZoneKey(scope: scope, zoneID: recordID.zoneID)]?[recordID.recordName]?.record
    }

    public func records(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [Record] {
        (state.records[ZoneKey(scope: scope, zoneID: zoneID)] ?? [:]).sorted { $0.key < $1.key }.map(\.value.record)
    }

    public func allRecords(in scope: DatabaseScope) throws -> [Record] {
        state.records.filter { $0.key.scope == scope }.sorted { $0.key < $1.key }.flatMap { zone in
            zone.value.sorted { $0.key < $1.key }.map(\.value.record)
        }
    }

    public func staleRecordIDs(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [RecordID] {
        (state.records[ZoneKey(scope: scope, zoneID: zoneID)] ?? [:]).filter(\.value.isStale).keys.sorted()
            .map { RecordID(recordName: $0, zoneID: zoneID) }
    }

    public func knownZones(in scope: DatabaseScope) throws -> [KnownZone] {
        state.zones.filter { $0.key.scope == scope }.map(\.value).sorted()
    }

    public func purgedZones(in scope: DatabaseScope) throws -> [RecordZoneID] {
        state.purged.filter { $0.scope == scope }.map(\.zoneID).sorted()
    }

    public func databaseToken(for scope: DatabaseScope) throws -> ServerChangeToken? {
        state.tokens.databaseToken(for: scope)
    }

    public func zoneToken(for zoneID: RecordZoneID, in scope: DatabaseScope) throws -> ServerChangeToken? {
        state.tokens.zoneToken(for: zoneID, in: scope)
    }

    public func tokenCache() throws -> TokenCache { state.tokens }

    public func pendingChanges() throws -> [PendingChange] {
        state.pending.values.sorted { $0.sequence < $1.sequence }.map(\.change)
    }

    // MARK: Writing

    public func apply(_ batch: StoreBatch) throws {
        var s = state
        let scope = batch.scope
        func key(_ zoneID: RecordZoneID) -> ZoneKey { ZoneKey(scope: scope, zoneID: zoneID) }

        if batch.beginDatabaseRefetch {
            s.tokens.setDatabaseToken(nil, for: scope)
            for (k, zone) in s.zones where k.scope == scope {
                var zone = zone
                zone.isStale = true
                s.zones[k] = zone
            }
        }
        for zoneID in batch.beginZoneRefetch {
            s.tokens.setZoneToken(nil, for: zoneID, in: scope)
            if var records = s.records[key(zoneID)] {
                for name in records.keys { records[name]?.isStale = true }
                s.records[key(zoneID)] = records
            }
        }
        for removal in batch.zoneRemovals {
            let k = key(removal.zoneID)
            s.tokens.setZoneToken(nil, for: removal.zoneID, in: scope)
            s.zones[k] = nil
            if removal.removeRecords { s.records[k] = nil }
            if removal.removePendingChanges {
                s.pending = s.pending.filter { $0.key.scope != scope || $0.key.zoneID != removal.zoneID }
            }
        }
        for zoneID in batch.zonesNeedingFetch {
            s.zones[key(zoneID)] = KnownZone(zoneID: zoneID, needsFetch: true, isStale: false)
        }
        for zoneID in batch.zonesConfirmed {
            let needsFetch = s.zones[key(zoneID)]?.needsFetch ?? false
            s.zones[key(zoneID)] = KnownZone(zoneID: zoneID, needsFetch: needsFetch, isStale: false)
        }
        for zoneID in batch.zonesFetched {
            s.zones[key(zoneID)]?.needsFetch = false
        }
        for recordID in batch.deletedRecordIDs {
            let k = key(recordID.zoneID)
            s.records[k]?[recordID.recordName] = nil
            if s.records[k]?.isEmpty == true { s.records[k] = nil }
        }
        for record in batch.savedRecords {
            s.records[key(record.recordID.zoneID), default: [:]][record.recordID.recordName] = RecordEntry(record: record, isStale: false)
        }
        try faultInjector?(.afterRecords)
        for pendingKey in batch.pendingRemovals {
            s.pending[pendingKey] = nil
        }
        for change in batch.pendingUpserts {
            s.pending[change.key] = (s.nextSequence, change)
            s.nextSequence += 1
        }
        for zoneID in batch.purgedZonesAdded { s.purged.insert(key(zoneID)) }
        for zoneID in batch.purgedZonesRemoved { s.purged.remove(key(zoneID)) }
        try faultInjector?(.beforeTokens)
        if let update = batch.databaseToken {
            s.tokens.setDatabaseToken(update.token, for: scope)
        }
        for change in batch.zoneTokens {
            s.tokens.setZoneToken(change.update.token, for: change.zoneID, in: scope)
        }
        try faultInjector?(.beforeCommit)
        state = s
    }
}
