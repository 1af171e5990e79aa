import SyncCore

/// A ``LocalStore`` in memory: for simulations and tests.
///
/// A batch is applied in place while an undo log keeps the value each step
/// replaced; when any step fails the log is played back, so a failure leaves
/// nothing half-written. A batch costs what it changes, not what the store
/// holds (a zone refetch or removal still touches its whole zone).
public final class InMemoryLocalStore: LocalStore {
    typealias ZoneKey = TokenCache.ZoneKey

    struct RecordEntry {
        var record: Record
        var isStale: Bool
    }

    struct State {
        var records: [ZoneKey: [String: RecordEntry]] = [:]
        /// The names of the records marked stale, per zone (the entries with `isStale`).
        var staleNames: [ZoneKey: Set<String>] = [:]
        var zones: [ZoneKey: KnownZone] = [:]
        var purged: Set<ZoneKey> = []
        var tokens = TokenCache()
        var pending: [PendingChange.Key: (sequence: Int64, change: PendingChange)] = [:]
        var nextSequence: Int64 = 1
    }

    private var state = State()
    /// Record names in order, per zone read by offset; kept up to date by
    /// ``apply(_:)`` once built.
    private var sortedNames: [ZoneKey: SortedRecordNames] = [:]
    public var faultInjector: ((StoreFaultPoint) throws -> Void)?

    public init() {}

    // MARK: Reading

    public func record(_ recordID: RecordID, in scope: DatabaseScope) throws -> Record? {
        state.records[ZoneKey(scope: scope, zoneID: recordID.zoneID)]?[recordID.recordName]?.record
    }

    public func records(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [Record] {
        (state.records[ZoneKey(scope: scope, zoneID: zoneID)] ?? [:]).sorted { $0.key < $1.key }.map(\.value.record)
    }

    public func recordCount(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> Int {
        state.records[ZoneKey(scope: scope, zoneID: zoneID)]?.count ?? 0
    }

    public func record(atOffset offset: Int, in scope: DatabaseScope, zoneID: RecordZoneID) throws -> Record? {
        let key = ZoneKey(scope: scope, zoneID: zoneID)
        guard let records = state.records[key], offset >= 0 && offset < records.count else { return nil }
        if sortedNames[key] == nil { sortedNames[key] = SortedRecordNames(records.keys) }
        guard let name = sortedNames[key]?.name(atOffset: offset) else { return nil }
        return records[name]?.record
    }

    public func allRecords(in scope: DatabaseScope) throws -> [Record] {
        state.records.filter { $0.key.scope == scope }.sorted { $0.key < $1.key }.flatMap { zone in
            zone.value.sorted { $0.key < $1.key }.map(\.value.record)
        }
    }

    public func staleRecordIDs(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [RecordID] {
        (state.staleNames[ZoneKey(scope: scope, zoneID: zoneID)] ?? []).sorted().map { RecordID(recordName: $0, zoneID: zoneID) }
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

    /// One value a step of ``apply(_:)`` replaced, to put back if a later step fails.
    private enum Undo {
        case record(ZoneKey, String, RecordEntry?)
        case zoneRecords(ZoneKey, [String: RecordEntry]?)
        case staleNames(ZoneKey, Set<String>?)
        case staleName(ZoneKey, String)
        case zone(ZoneKey, KnownZone?)
        case pending(PendingChange.Key, (sequence: Int64, change: PendingChange)?)
        case purged(ZoneKey, wasPurged: Bool)
    }

    public func apply(_ batch: StoreBatch) throws {
        var undo: [Undo] = []
        let tokensBefore = state.tokens
        let nextSequenceBefore = state.nextSequence
        // Zones whose record names changed, and zones replaced wholesale, for `sortedNames`.
        var touchedNames: [ZoneKey: Set<String>] = [:]
        var replacedZones: Set<ZoneKey> = []
        do {
            try write(batch, undo: &undo, touchedNames: &touchedNames, replacedZones: &replacedZones)
        } catch {
            for step in undo.reversed() {
                switch step {
                case .record(let k, let name, let old):
                    state.records[k, default: [:]][name] = old
                case .zoneRecords(let k, let old):
                    state.records[k] = old
                case .staleNames(let k, let old):
                    state.staleNames[k] = old
                case .staleName(let k, let name):
                    state.staleNames[k, default: []].insert(name)
                case .zone(let k, let old):
                    state.zones[k] = old
                case .pending(let key, let old):
                    state.pending[key] = old
                case .purged(let k, let wasPurged):
                    if wasPurged { state.purged.insert(k) } else { state.purged.remove(k) }
                }
            }
            state.tokens = tokensBefore
            state.nextSequence = nextSequenceBefore
            throw error
        }
        for k in replacedZones { sortedNames[k] = nil }
        for (k, names) in touchedNames {
            guard let i = sortedNames.index(forKey: k) else { continue }
            let records = state.records[k]
            for name in names {
                if records?[name] != nil { sortedNames.values[i].insert(name) } else { sortedNames.values[i].remove(name) }
            }
        }
    }

    private func write(
        _ batch: StoreBatch, undo: inout [Undo], touchedNames: inout [ZoneKey: Set<String>], replacedZones: inout Set<ZoneKey>
    ) throws {
        let scope = batch.scope
        func key(_ zoneID: RecordZoneID) -> ZoneKey { ZoneKey(scope: scope, zoneID: zoneID) }
        func setZone(_ k: ZoneKey, _ zone: KnownZone?) {
            undo.append(.zone(k, state.zones[k]))
            state.zones[k] = zone
        }
        // Whether the zone last asked about keeps its names in order: a batch
        // mostly touches one zone, so its key is hashed once here, not once per record.
        var lastOrderedZone: (key: ZoneKey, isOrdered: Bool)?
        func keepsOrder(_ k: ZoneKey) -> Bool {
            guard !sortedNames.isEmpty else { return false }
            if let last = lastOrderedZone, last.key == k { return last.isOrdered }
            let isOrdered = sortedNames[k] != nil
            lastOrderedZone = (k, isOrdered)
            return isOrdered
        }
        // One lookup of the zone per record; its dictionary is changed in place.
        func setRecord(_ k: ZoneKey, _ name: String, _ entry: RecordEntry?) {
            let old: RecordEntry?
            if let i = state.records.index(forKey: k) {
                if let entry {
                    old = state.records.values[i].updateValue(entry, forKey: name)
                } else {
                    old = state.records.values[i].removeValue(forKey: name)
                }
                undo.append(.record(k, name, old))
                if state.records.values[i].isEmpty {
                    undo.append(.zoneRecords(k, [:]))
                    state.records.remove(at: i)
                }
            } else {
                guard let entry else { return }
                undo.append(.zoneRecords(k, nil))
                undo.append(.record(k, name, nil))
                state.records[k] = [name: entry]
            }
            if !state.staleNames.isEmpty, state.staleNames[k]?.remove(name) != nil { undo.append(.staleName(k, name)) }
            // Only zones read by offset keep their names in order (see `apply`).
            if keepsOrder(k) { touchedNames[k, default: []].insert(name) }
        }
        func setPending(_ pendingKey: PendingChange.Key, _ value: (sequence: Int64, change: PendingChange)?) {
            undo.append(.pending(pendingKey, state.pending[pendingKey]))
            state.pending[pendingKey] = value
        }

        if batch.beginDatabaseRefetch {
            state.tokens.setDatabaseToken(nil, for: scope)
            for (k, zone) in state.zones.filter({ $0.key.scope == scope }) {
                var zone = zone
                zone.isStale = true
                setZone(k, zone)
            }
        }
        for zoneID in batch.beginZoneRefetch {
            state.tokens.setZoneToken(nil, for: zoneID, in: scope)
            let k = key(zoneID)
            if let records = state.records[k] {
                undo.append(.zoneRecords(k, records))
                state.records[k] = records.mapValues { RecordEntry(record: $0.record, isStale: true) }
                undo.append(.staleNames(k, state.staleNames[k]))
                state.staleNames[k] = Set(records.keys)
            }
        }
        for removal in batch.zoneRemovals {
            let k = key(removal.zoneID)
            state.tokens.setZoneToken(nil, for: removal.zoneID, in: scope)
            setZone(k, nil)
            if removal.removeRecords, let records = state.records[k] {
                undo.append(.zoneRecords(k, records))
                state.records[k] = nil
                undo.append(.staleNames(k, state.staleNames[k]))
                state.staleNames[k] = nil
                replacedZones.insert(k)
            }
            if removal.removePendingChanges {
                let removed = state.pending.keys.filter { $0.scope == scope && $0.zoneID == removal.zoneID }
                for pendingKey in removed { setPending(pendingKey, nil) }
            }
        }
        for zoneID in batch.zonesNeedingFetch {
            setZone(key(zoneID), KnownZone(zoneID: zoneID, needsFetch: true, isStale: false))
        }
        for zoneID in batch.zonesConfirmed {
            let needsFetch = state.zones[key(zoneID)]?.needsFetch ?? false
            setZone(key(zoneID), KnownZone(zoneID: zoneID, needsFetch: needsFetch, isStale: false))
        }
        for zoneID in batch.zonesFetched {
            if var zone = state.zones[key(zoneID)] {
                zone.needsFetch = false
                setZone(key(zoneID), zone)
            }
        }
        for recordID in batch.deletedRecordIDs {
            setRecord(key(recordID.zoneID), recordID.recordName, nil)
        }
        for record in batch.savedRecords {
            setRecord(key(record.recordID.zoneID), record.recordID.recordName, RecordEntry(record: record, isStale: false))
        }
        try faultInjector?(.afterRecords)
        for pendingKey in batch.pendingRemovals {
            setPending(pendingKey, nil)
        }
        for change in batch.pendingUpserts {
            setPending(change.key, (state.nextSequence, change))
            state.nextSequence += 1
        }
        for zoneID in batch.purgedZonesAdded {
            undo.append(.purged(key(zoneID), wasPurged: state.purged.contains(key(zoneID))))
            state.purged.insert(key(zoneID))
        }
        for zoneID in batch.purgedZonesRemoved {
            undo.append(.purged(key(zoneID), wasPurged: state.purged.contains(key(zoneID))))
            state.purged.remove(key(zoneID))
        }
        try faultInjector?(.beforeTokens)
        if let update = batch.databaseToken {
            state.tokens.setDatabaseToken(update.token, for: scope)
        }
        for change in batch.zoneTokens {
            state.tokens.setZoneToken(change.update.token, for: change.zoneID, in: scope)
        }
        try faultInjector?(.beforeCommit)
    }
}
