import Foundation
import SyncCore
import SyncWire
import SyncServer

/// records/query, records/lookup, records/changes, changes/zone and
/// zones/changes, in CloudKit Web Services' shapes.
extension APIDispatcher {
    private func recordItem(
        _ record: Record, _ db: DatabaseID, numbersAsStrings: Bool, withZone: Bool = false, shareKeys: (WireRecord) -> WireRecord = { $0 }
    ) -> WireResult<WireRecord> {
        var wire = shareKeys(withDownloadURLs(WireRecord(record), db))
        if withZone { wire.zoneID = WireZoneID(record.recordID.zoneID) }
        return .success(numbersAsStrings ? wire.numbersAsStrings() : wire)
    }

    /// The zone's current token, for `getCurrentSyncToken=true`: what
    /// `zones/list` reports for it (the private default zone has none).
    package func currentSyncToken(_ db: DatabaseID, caller: Caller, zoneID: RecordZoneID) -> ServerChangeToken? {
        guard let listing = try? core.engine.listRecordZones(caller: caller, database: db) else { return nil }
        var id = zoneID
        if db.scope == .public {
            id.ownerName = RecordZoneID.publicOwnerName
        } else if id.ownerName.isEmpty || id.ownerName == RecordZoneID.currentUserName {
            id.ownerName = caller.user
        }
        return listing.first { $0.zoneID == id }?.syncToken
    }

    package func lookupRecords(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let request = try decode(WireRecordsLookupRequest.self, call)
        try checkCount(request.records.count, "records to look up")
        let zoneID = request.zoneID.map(RecordZoneID.init) ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
        let results = try core.engine.lookupRecords(
            caller: caller, database: db, zoneID: zoneID, recordNames: request.records.map(\.recordName), desiredKeys: request.desiredKeys)
        let numbers = request.numbersAsStrings ?? false
        let shareKeys = shareKeysFill(results, caller: caller, db)
        let items: [WireResult<WireRecord>] = results.map { result in
            switch result {
            case .success(let record): recordItem(record, db, numbersAsStrings: numbers, shareKeys: shareKeys)
            case .failure(let error): .failure(WireError(error))
            }
        }
        let token = call.flag("getCurrentSyncToken") ? currentSyncToken(db, caller: caller, zoneID: zoneID) : nil
        return try encode(WireRecordsResponse(records: items, syncToken: token))
    }

    package func queryRecords(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let request = try decode(WireRecordsQueryRequest.self, call)
        let query = try request.query.recordQuery()
        let result = try core.engine.queryRecords(
            caller: caller, database: db,
            QueryRequest(
                query: query, zoneID: request.zoneID.map(RecordZoneID.init), zoneWide: request.zoneWide ?? false,
                resultsLimit: request.resultsLimit, continuationMarker: request.continuationMarker, desiredKeys: request.desiredKeys))
        let numbers = request.numbersAsStrings ?? false
        let zoneWide = (request.zoneWide ?? false) && request.zoneID == nil
        let shareKeys = shareKeysFill(result.records, caller: caller, db)
        return try encode(WireRecordsQueryResponse(
            records: result.records.map { recordItem($0, db, numbersAsStrings: numbers, withZone: zoneWide, shareKeys: shareKeys) },
            continuationMarker: result.continuationMarker,
            syncToken: call.flag("getCurrentSyncToken") ? result.syncToken : nil))
    }

    package func zoneChanges(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let (request, requests) = try Self.zoneChangesPlan(call)
        let results = try core.engine.fetchRecordZoneChanges(caller: caller, database: db, requests)
        guard answering else { return APIAnswer(body: Data()) }
        let shareKeys = shareKeysFill(results, caller: caller, db)
        return Self.zoneChangesAnswer(results, request, fill: { shareKeys(withDownloadURLs($0, db)) })
    }

    /// `changes/zone` decoded and checked, before the engine sees it.
    package static func zoneChangesPlan(_ call: APICall) throws(CloudError) -> (WireZoneChangesRequest, [ZoneChangesRequest]) {
        let request = try decodeBody(WireZoneChangesRequest.self, call)
        // A malformed limit is a malformed request (400), not one zone's error.
        if let limit = ([request.resultsLimit] + request.zones.map(\.resultsLimit)).compactMap({ $0 }).first(where: { $0 < 0 }) {
            throw CloudError(.invalidArguments, "resultsLimit must be 0 (the server's default, \(maxOperations)) or a positive number, not \(limit).")
        }
        let requests = request.zones.map { zone in
            ZoneChangesRequest(
                zoneID: RecordZoneID(zone.zoneID), previousServerChangeToken: zone.syncToken,
                resultsLimit: zone.resultsLimit ?? request.resultsLimit, desiredKeys: zone.desiredKeys ?? request.desiredKeys,
                desiredRecordTypes: zone.desiredRecordTypes ?? request.desiredRecordTypes)
        }
        return (request, requests)
    }

    /// The answer of `changes/zone`, worded from the engine's results alone
    /// (`fill` adds asset download URLs; it reads the engine only when it holds assets).
    package static func zoneChangesAnswer(
        _ results: [Result<ZoneChangesBatch, CloudError>], _ request: WireZoneChangesRequest, fill: (WireRecord) -> WireRecord
    ) -> APIAnswer {
        var response = WireZoneChangesResponse(results)
        for (index, zone) in request.zones.enumerated() {
            guard case .success(var changes) = response.zones[index] else { continue }
            let numbers = (zone.numbersAsStrings ?? request.numbersAsStrings) == true
            changes.records = changes.records.map { record in
                let filled = fill(record)
                return numbers ? filled.numbersAsStrings() : filled
            }
            response.zones[index] = .success(changes)
        }
        let tokenOut: ServerChangeToken? = if case .success(let batch)? = results.first { batch.serverChangeToken } else { nil }
        do {
            return APIAnswer(body: try WireJSON.encode(response), tokenIn: request.zones.first?.syncToken, tokenOut: tokenOut)
        } catch {
            return .error(error)
        }
    }

    /// `records/changes`: one zone's changes, as `changes/zone` gives them
    /// (same tokens, same rules), in the older single-zone shape.
    package func recordsChanges(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let request = try decode(WireRecordsChangesRequest.self, call)
        let results = try core.engine.fetchRecordZoneChanges(caller: caller, database: db, [
            ZoneChangesRequest(
                zoneID: RecordZoneID(request.zoneID), previousServerChangeToken: request.syncToken, resultsLimit: request.resultsLimit,
                desiredKeys: request.desiredKeys, desiredRecordTypes: request.desiredRecordTypes),
        ])
        guard let result = results.first else {
            throw CloudError(.internalError, "records/changes got no answer for its zone.")
        }
        let batch = try result.get()
        var records = WireZoneChanges(batch).records.map { withDownloadURLs($0, db) }
        if request.numbersAsStrings == true { records = records.map { $0.numbersAsStrings() } }
        return try encode(
            WireRecordsChangesResponse(
                zoneID: WireZoneID(batch.zoneID), records: records, syncToken: batch.serverChangeToken, moreComing: batch.moreComing),
            tokenIn: request.syncToken, tokenOut: batch.serverChangeToken)
    }

    /// `zones/changes`: the zones that changed since a database token, as
    /// `changes/database` answers (the same tokens).
    package func zonesChanges(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let request = try decode(WireZonesChangesRequest.self, call)
        let batch = try core.engine.fetchDatabaseChanges(caller: caller, database: db, since: request.syncToken, resultsLimit: request.resultsLimit)
        return try encode(WireDatabaseChanges(batch), tokenIn: request.syncToken, tokenOut: batch.serverChangeToken)
    }
}
