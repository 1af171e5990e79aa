import Foundation
import SyncCore

/// Where a page of query results ended: the last record's sort values and
/// identity, bound to the query it belongs to. Handed out as URL-safe base64
/// JSON (`continuationMarker`).
struct QueryMarker: Codable, Hashable {
    /// Fingerprint of the query (type, filters, sort): a marker is only good for its own query.
    var query: String
    var zoneName: String
    var ownerName: String
    var recordName: String
    /// The last record's sort values, in `sortBy` order (`null`: it had no value).
    var keys: [WireField?]

    func encoded() -> String {
        let data = (try? JSONEncoder().encode(self)) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> QueryMarker? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDecoder().decode(QueryMarker.self, from: data)
    }
}

/// A matching record with what it sorts by.
private struct QueryHit {
    var zone: ZoneState
    var name: String
    var stored: StoredRecord
    var keys: [FieldValue?]
}

extension ServerEngine {
    /// `records/query`: the records of one type that match a query's
    /// filters, in its sort order, one page at a time.
    ///
    /// Cost grows with the records of the queried type in the zones searched
    /// (the zone keeps its records' names by type), never with the rest of
    /// the database. Order: the `sortBy` fields (a record without the field
    /// comes after those with it), then zone and record name, so the order is
    /// total. A continuation marker holds the last record's sort values and
    /// name, and the next page starts strictly after that position: a record
    /// is never returned twice nor skipped as long as the values it sorts by
    /// do not change between pages (records added or deleted meanwhile appear
    /// or vanish in their place).
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
        let limit = try effectiveLimit(request.resultsLimit)
        let fingerprint = Self.fingerprint(query)
        var after: QueryMarker?
        if let text = request.continuationMarker {
            guard let marker = QueryMarker.decode(text), marker.keys.count == query.sortBy.count else {
                throw CloudError(
                    .invalidArguments,
                    "continuationMarker is not one this server handed out: pass it exactly as the previous records/query answer gave it.")
            }
            guard marker.query == fingerprint else {
                throw CloudError(
                    .invalidArguments,
                    "This continuationMarker belongs to another query: send the same query (record type, filters and sort) with the marker it gave.")
            }
            after = marker
        }

        // The zones to search.
        var zones: [ZoneState] = []
        var singleZone: ZoneState?
        if request.zoneWide && request.zoneID == nil {
            zones = try searchableZones(caller: caller, database: database)
        } else {
            let requested = request.zoneID ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
            let zone = try zone(normalize(requested, caller: caller, scope: database.scope), for: caller, in: database)
            zones = [zone]
            singleZone = zone
        }

        // Candidates: the records of this type, through the per-type index.
        guard let type = names.index(of: query.recordType) else {
            return QueryResult(records: [], syncToken: singleZone.map { currentToken(of: $0, caller: caller, scope: database.scope, database: database) })
        }
        let systemFields = query.predicate.filters.contains { RecordQuery.systemFieldNames.contains($0.fieldName) }
        var hits: [QueryHit] = []
        for zone in zones {
            guard let names = zone.recordNamesByType[type] else { continue }
            for name in names {
                guard let stored = zone.records[name] else { continue }
                let fields = systemFields ? Self.withSystemFields(stored, name: name) : stored.fields
                guard query.predicate.matches(fields) else { continue }
                let keys = query.sortBy.map { Self.sortValue($0.fieldName, stored, name: name) }
                hits.append(QueryHit(zone: zone, name: name, stored: stored, keys: keys))
            }
        }
        let sorts = query.sortBy
        hits.sort { Self.compare($0.keys, ($0.zone.zoneID, $0.name), $1.keys, ($1.zone.zoneID, $1.name), sorts) < 0 }

        var start = 0
        if let after {
            let keys: [FieldValue?] = after.keys.map { $0.flatMap { try? $0.fieldValue(name: "continuationMarker") } }
            let position = (RecordZoneID(zoneName: after.zoneName, ownerName: after.ownerName), after.recordName)
            // First hit strictly after the marker's position.
            var low = 0
            var high = hits.count
            while low < high {
                let mid = (low + high) / 2
                if Self.compare(hits[mid].keys, (hits[mid].zone.zoneID, hits[mid].name), keys, position, sorts) <= 0 {
                    low = mid + 1
                } else {
                    high = mid
                }
            }
            start = low
        }
        let end = min(hits.count, start + limit)
        var records: [Record] = []
        records.reserveCapacity(end - start)
        for hit in hits[start..<end] {
            records.append(record(hit.stored, name: hit.name, zoneID: hit.zone.zoneID, desiredKeys: request.desiredKeys))
        }
        var marker: String?
        if end < hits.count, let last = hits[start..<end].last {
            marker = QueryMarker(
                query: fingerprint, zoneName: last.zone.zoneID.zoneName, ownerName: last.zone.zoneID.ownerName,
                recordName: last.name, keys: last.keys.map { $0.map(WireField.init) }
            ).encoded()
        }
        return QueryResult(
            records: records, continuationMarker: marker,
            syncToken: singleZone.flatMap { zone in
                zone.zoneID.isDefaultZone && database.scope != .public
                    ? nil : currentToken(of: zone, caller: caller, scope: database.scope, database: database)
            })
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
