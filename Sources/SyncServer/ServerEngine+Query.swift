import Foundation
import SyncCore

/// A matching record with what it sorts by.
private struct QueryHit {
    /// Index into the zones searched.
    var zone: UInt32
    var name: String
    var stored: StoredRecord
    var keys: [FieldValue?]
}

extension ServerEngine {
    /// How long and how much the engine keeps of paged queries.
    public var queryPaging: QueryPagingLimits {
        get { querySnapshots.limits }
        set { querySnapshots.limits = newValue }
    }

    /// Paged-query snapshots kept now (for tests and the inspector).
    public var querySnapshotCount: Int { querySnapshots.snapshots.count }

    /// `records/query`: the records of one type that match a query's
    /// filters, in its sort order, one page at a time.
    ///
    /// Cost grows with the records of the queried type in the zones searched
    /// (the zone keeps its records' names by type), never with the rest of
    /// the database; a later page costs what it returns (plus the records
    /// it leaves out), never a new search. Order: the `sortBy` fields (a
    /// record without the field comes after those with it), then zone and
    /// record name, so the order is total.
    ///
    /// Paging is snapshot paging. The first page finds every matching
    /// record, returns the first `resultsLimit` of them and, when more
    /// remain, keeps the rest (zone and name, in order) as a snapshot that
    /// its `continuationMarker` names. A later page walks on through that
    /// snapshot: each record comes with its values as they are now, and a
    /// record deleted, or no longer of the type or matching the filters, is
    /// left out. So the records a paged query returns are exactly those that
    /// matched when its first page was served and still exist (and match)
    /// when their page is served, each once, in first-page order, however
    /// records change between pages; records that begin to match after the
    /// first page are not added (run the query again, or follow the zone's
    /// changes). A marker is good for repeating the same page (a retry) until
    /// its snapshot expires. Snapshots are not journaled: after a restart, an
    /// import or a reset, or once evicted (``queryPaging``), a marker
    /// answers `BAD_REQUEST` saying it has expired.
    public func queryRecords(caller: Caller, database: DatabaseID, _ request: QueryRequest) throws(CloudError) -> QueryResult {
        if database.scope != .public { try checkCaller(caller) }
        let query = request.query
        try Validation.checkName(query.recordType, what: "record type")
        for filter in query.predicate.filters where !RecordQuery.systemFieldNames.contains(filter.fieldName) {
            try filter.validate()
        }
        for sort in query.sortBy where !RecordQuery.systemFieldNames.contains(sort.fieldName) {
            try Validation.checkFieldName(sort.fieldName)
        }
        try admitQuery(query, database: database)
        let limit = try effectiveLimit(request.resultsLimit)
        let fingerprint = Self.fingerprint(query)
        var marker: QueryMarker?
        if let text = request.continuationMarker {
            guard let decoded = QueryMarker.decode(text) else {
                throw CloudError(
                    .invalidArguments,
                    "continuationMarker is not one this server handed out: pass it exactly as the previous records/query answer gave it.")
            }
            guard decoded.query == fingerprint else {
                throw CloudError(
                    .invalidArguments,
                    "This continuationMarker belongs to another query: send the same query (record type, filters and sort) with the marker it gave.")
            }
            marker = decoded
        }

        // The zones to search.
        var zones: [ZoneState] = []
        var singleZone: ZoneState?
        let zoneRequest: RecordZoneID?
        if request.zoneWide && request.zoneID == nil {
            zones = try searchableZones(caller: caller, database: database)
            zoneRequest = nil
        } else {
            let requested = normalize(
                request.zoneID ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: ""), caller: caller, scope: database.scope)
            let zone = try zone(requested, for: caller, in: database)
            zones = [zone]
            singleZone = zone
            zoneRequest = requested
        }
        let syncToken = singleZone.flatMap { zone in
            zone.zoneID.isDefaultZone && database.scope != .public
                ? nil : currentToken(of: zone, caller: caller, scope: database.scope, database: database)
        }

        if let marker {
            let page = try nextPage(
                marker, caller: caller, database: database, zoneRequest: zoneRequest, zones: zones, query: query, limit: limit,
                desiredKeys: request.desiredKeys)
            return QueryResult(records: page.records, continuationMarker: page.marker, syncToken: syncToken)
        }

        // Candidates: the records of this type, through the per-type index.
        guard let type = names.index(of: query.recordType) else {
            return QueryResult(records: [], syncToken: syncToken)
        }
        let systemFields = query.predicate.filters.contains { RecordQuery.systemFieldNames.contains($0.fieldName) }
        var hits: [QueryHit] = []
        for (zoneIndex, zone) in zones.enumerated() {
            guard let names = zone.recordNamesByType[type] else { continue }
            // A record share's participant sees only the hierarchies they accepted.
            let viewer = zone.limitedViewer(caller.user, in: database.scope)
            for name in names {
                guard let stored = zone.records[name], viewer.map({ zone.isVisible(name, to: $0) }) ?? true else { continue }
                let fields = systemFields ? Self.withSystemFields(stored, name: name) : stored.fields
                guard query.predicate.matches(fields) else { continue }
                let keys = query.sortBy.map { Self.sortValue($0.fieldName, stored, name: name) }
                hits.append(QueryHit(zone: UInt32(zoneIndex), name: name, stored: stored, keys: keys))
            }
        }
        let sorts = query.sortBy
        hits.sort { Self.compare($0.keys, (zones[Int($0.zone)].zoneID, $0.name), $1.keys, (zones[Int($1.zone)].zoneID, $1.name), sorts) < 0 }

        let end = min(hits.count, limit)
        var records: [Record] = []
        records.reserveCapacity(end)
        for hit in hits[0..<end] {
            records.append(record(hit.stored, name: hit.name, zone: zones[Int(hit.zone)], desiredKeys: request.desiredKeys))
        }
        var next: String?
        if end < hits.count {
            // Keep the rest as this query's snapshot.
            let now = clock.now()
            querySnapshots.expire(now: now)
            let snapshotZones = zones.map { QuerySnapshot.Zone(zoneID: $0.zoneID, incarnation: $0.incarnation) }
            let entries = hits[end...].map { QuerySnapshot.Entry(zone: $0.zone, name: $0.name) }
            let digest = QuerySnapshot.digest(snapshotZones, entries)
            let number = querySnapshots.insert(QuerySnapshot(
                created: now, digest: digest, fingerprint: fingerprint, user: caller.user, database: database, zoneRequest: zoneRequest,
                history: historyID, zones: snapshotZones, entries: entries, lastUse: 0, lastUsedAt: now))
            next = QueryMarker(snapshot: number, created: now, digest: digest, query: fingerprint, offset: 0).encoded()
        }
        return QueryResult(records: records, continuationMarker: next, syncToken: syncToken)
    }

    /// A later page: walks the marker's snapshot from its offset, taking the
    /// records that still exist and match, with their current values.
    private func nextPage(
        _ marker: QueryMarker, caller: Caller, database: DatabaseID, zoneRequest: RecordZoneID?, zones: [ZoneState], query: RecordQuery,
        limit: Int, desiredKeys: [String]?
    ) throws(CloudError) -> (records: [Record], marker: String?) {
        let now = clock.now()
        querySnapshots.expire(now: now)
        guard let snapshot = querySnapshots.use(marker.snapshot, now: now), snapshot.created == marker.created,
              snapshot.digest == marker.digest, snapshot.history == historyID
        else {
            let minutes = querySnapshots.limits.idleExpiry / 60_000
            throw CloudError(
                .invalidArguments,
                "This continuationMarker has expired: the server keeps a query's remaining results for \(minutes) minutes after its last page (and only its most recently used queries), and forgets them when it restarts or its data is replaced. Run the query again without a marker.")
        }
        guard snapshot.fingerprint == marker.query, snapshot.user == caller.user, snapshot.database == database,
              snapshot.zoneRequest == zoneRequest
        else {
            throw CloudError(
                .invalidArguments,
                "This continuationMarker belongs to another query: send the same query (record type, filters, sort, zone and database) as the caller who got the marker.")
        }
        guard marker.offset <= snapshot.entries.count else {
            throw CloudError(
                .invalidArguments,
                "continuationMarker is not one this server handed out: pass it exactly as the previous records/query answer gave it.")
        }
        // The snapshot's zones as they are now: gone, no longer readable, or
        // made again (another incarnation) means their records are gone.
        var current: [RecordZoneID: ZoneState] = [:]
        for zone in zones { current[zone.zoneID] = zone }
        let live: [ZoneState?] = snapshot.zones.map { zone in
            guard let state = current[zone.zoneID], state.incarnation == zone.incarnation else { return nil }
            return state
        }
        let type = names.index(of: query.recordType)
        let systemFields = query.predicate.filters.contains { RecordQuery.systemFieldNames.contains($0.fieldName) }
        var records: [Record] = []
        var index = marker.offset
        while index < snapshot.entries.count, records.count < limit {
            let entry = snapshot.entries[index]
            index += 1
            guard let zone = live[Int(entry.zone)], let stored = zone.records[entry.name], stored.type == type,
                  database.scope != .shared || zone.isVisible(entry.name, to: caller.user)
            else { continue }
            let fields = systemFields ? Self.withSystemFields(stored, name: entry.name) : stored.fields
            guard query.predicate.matches(fields) else { continue }
            records.append(record(stored, name: entry.name, zone: zone, desiredKeys: desiredKeys))
        }
        guard index < snapshot.entries.count else { return (records, nil) }
        var next = marker
        next.offset = index
        return (records, next.encoded())
    }

    /// The zones a `zoneWide` query searches: the public zone, the caller's
    /// private zones, or the zones shared with the caller.
    private func searchableZones(caller: Caller, database: DatabaseID) throws(CloudError) -> [ZoneState] {
        switch database.scope {
        case .public:
            return [containerState(database).publicZone]
        case .private:
            return databases(of: caller.user, in: database).privateZones.values.sorted { $0.zoneID < $1.zoneID }
        case .shared:
            var zones: [ZoneState] = []
            for id in databases(of: caller.user, in: database).sharedZones.sorted() {
                if let zone = try? zone(id, for: caller, in: database) { zones.append(zone) }
            }
            return zones
        }
    }

    /// A stable fingerprint of a query: FNV-1a over its description.
    static func fingerprint(_ query: RecordQuery) -> String {
        let text = query.recordType + "\u{1}" + query.predicate.filters.map {
            "\($0.fieldName)\u{2}\($0.comparator.rawValue)\u{2}\($0.fieldValue)"
        }.joined(separator: "\u{3}") + "\u{1}" + query.sortBy.map { "\($0.fieldName)\u{2}\($0.ascending)" }.joined(separator: "\u{3}")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    static func withSystemFields(_ stored: StoredRecord, name: String) -> RecordFields {
        var fields = stored.fields
        fields["___recordID"] = .reference(RecordReference(recordName: name))
        fields["___createTime"] = .timestamp(stored.created.time)
        fields["___modTime"] = .timestamp(stored.modified.time)
        return fields
    }

    static func sortValue(_ fieldName: String, _ stored: StoredRecord, name: String) -> FieldValue? {
        switch fieldName {
        case "___recordID": .string(name)
        case "___createTime": .timestamp(stored.created.time)
        case "___modTime": .timestamp(stored.modified.time)
        default: stored.fields[fieldName]
        }
    }

    /// Orders two positions: sort values (missing last), then zone, then name.
    static func compare(
        _ a: [FieldValue?], _ aID: (RecordZoneID, String), _ b: [FieldValue?], _ bID: (RecordZoneID, String), _ sorts: [RecordQuery.Sort]
    ) -> Int {
        for (index, sort) in sorts.enumerated() {
            let x = index < a.count ? a[index] : nil
            let y = index < b.count ? b[index] : nil
            let order: Int
            switch (x, y) {
            case (nil, nil): order = 0
            case (nil, _): order = 1
            case (_, nil): order = -1
            case (let x?, let y?): order = (sort.ascending ? 1 : -1) * compareValues(x, y)
            }
            if order != 0 { return order }
        }
        if aID.0 != bID.0 { return aID.0 < bID.0 ? -1 : 1 }
        if aID.1 != bID.1 { return aID.1 < bID.1 ? -1 : 1 }
        return 0
    }

    /// A total order on field values: numbers by value (INT64 and DOUBLE
    /// together), strings and timestamps by value, and values of different
    /// types by type name.
    static func compareValues(_ a: FieldValue, _ b: FieldValue) -> Int {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        func number(_ v: FieldValue) -> Double? {
            switch v {
            case .int64(let i): Double(i)
            case .double(let d): d.isNaN ? nil : d
            default: nil
            }
        }
        switch (a, b) {
        case (.string(let x), .string(let y)): return sign(x, y)
        case (.int64(let x), .int64(let y)): return sign(x, y)
        case (.timestamp(let x), .timestamp(let y)): return sign(x, y)
        default:
            if let x = number(a), let y = number(b) { return sign(x, y) }
            if a.typeName != b.typeName { return sign(a.typeName, b.typeName) }
            return sign(a.displayString, b.displayString)
        }
    }
}
