import Foundation
import SyncCore
import SyncWire
import SyncServer

/// A call split into three steps, so that only the middle one holds the
/// server's state lock:
///
/// 1. ``APIDispatcher/prepare(_:)``: the path, the method, the caller and the
///    body are checked and decoded. Reads only the call.
/// 2. ``APIDispatcher/step(_:)``: the engine step, under the lock.
/// 3. ``StepOutcome/answer``: the answer worded and encoded from the step's
///    results alone, after the lock is released (or never, in the journal's replay).
///
/// The calls that make up a server's load (`records/modify`, `changes/zone`)
/// and the common reads (`zones/list`, `changes/database`, `records/lookup`,
/// `records/query`) have routes of their own; every other call is a
/// ``Route/whole`` one: its body is decoded in step 1 and its answer encoded
/// in step 3 too, around its route as it always ran (`APIDispatcher+Whole.swift`).
package struct PreparedCall: Sendable {
    package var call: APICall
    package var route: Route
    /// A ``Route/whole`` call's body, decoded ahead (outside the lock).
    package var decodedBody: DecodedBody? = nil

    package enum Route: Sendable {
        /// Any other call: its body decoded ahead (``PreparedCall/decodedBody``),
        /// its route run in the step, its answer encoded after it.
        case whole
        /// Refused before the engine saw it (a malformed request).
        case refused(APIAnswer)
        case modifyRecords(DatabaseID, APIDispatcher.ModifyRecordsPlan)
        case zoneChanges(DatabaseID, Caller, WireZoneChangesRequest, [ZoneChangesRequest])
        case listZones(DatabaseID, Caller)
        case databaseChanges(DatabaseID, Caller, WireDatabaseChangesRequest)
        case lookupRecords(DatabaseID, Caller, WireRecordsLookupRequest, RecordZoneID, getCurrentSyncToken: Bool)
        case queryRecords(DatabaseID, Caller, WireRecordsQueryRequest, QueryRequest, getCurrentSyncToken: Bool)
    }
}

/// What the engine step did: whether it changed the state (then the journal
/// keeps the call), and how to word its answer.
package struct StepOutcome: Sendable {
    package var changedState: Bool
    /// Reads only the step's results, never the engine: call it after the lock is released.
    package var answer: @Sendable () -> APIAnswer
    /// The answer's JSON is encoded by ``answer``, after the lock (``APIDispatcher/wholeStep(_:)``).
    package var encodesAfterStep = false
    /// The body types a ``PreparedCall/Route/whole`` step decoded under the
    /// lock, not ahead (none, unless the ahead table misses a route).
    package var bodiesDecodedUnderLock: [String] = []

    package init(changedState: Bool, answer: @escaping @Sendable () -> APIAnswer) {
        self.changedState = changedState
        self.answer = answer
    }

    /// An answer already worded.
    package init(_ answer: APIAnswer) {
        changedState = answer.changedState
        self.answer = { answer }
    }
}

extension APIDispatcher {
    /// Checks and decodes a call, outside the state lock. The checks run in
    /// the same order as in ``answer(_:)``, so a malformed call gets the same error.
    package static func prepare(_ call: APICall) -> PreparedCall {
        prepare(call) { caller throws(CloudError) in try modifyRecordsPlan(call, caller: caller) }
    }

    /// ``prepare(_:)`` with the `records/modify` plan made by `modifyPlan`
    /// (from the body's JSON, or from a journal row's binary form: `JournaledCallBody`).
    package static func prepare(_ call: APICall, modifyPlan: (Caller) throws(CloudError) -> ModifyRecordsPlan) -> PreparedCall {
        let parts = TextChecks.pathSegments(call.path)
        guard parts.count == 7, parts[0] == "database", parts[1] == "1" else { return wholeCall(call) }
        let operation = parts[5] + "/" + parts[6]
        let saving = operation == "records/modify"
        let fetching = !saving && operation == "changes/zone"
        let reading = !saving && !fetching && Self.readOperations.contains(operation)
        guard saving || fetching || reading else { return wholeCall(call) }
        do throws(CloudError) {
            let db = DatabaseID(
                container: try parseContainer(parts[2]), environment: try parseEnvironment(parts[3]), scope: try parseScope(parts[4]))
            if reading { return PreparedCall(call: call, route: try readRoute(operation, call, db)) }
            if saving {
                try checkCallMethod(call)
                let caller = try signedInUser(call, "Saving records")
                return PreparedCall(call: call, route: .modifyRecords(db, try modifyPlan(caller)))
            }
            let caller = try signedInUser(call, "Fetching zone changes")
            let (request, requests) = try zoneChangesPlan(call)
            return PreparedCall(call: call, route: .zoneChanges(db, caller, request, requests))
        } catch {
            return PreparedCall(call: call, route: .refused(.error(error)))
        }
    }

    private static let readOperations: Set<String> = ["zones/list", "changes/database", "records/lookup", "records/query"]

    /// The read routes, checked in the same order as ``answer(_:)`` checks them.
    private static func readRoute(_ operation: String, _ call: APICall, _ db: DatabaseID) throws(CloudError) -> PreparedCall.Route {
        func caller(_ what: String) throws(CloudError) -> Caller {
            if db.scope == .public, call.user == nil { return Caller(user: "", deviceID: call.deviceID) }
            return try signedInUser(call, what)
        }
        switch operation {
        case "zones/list":
            try checkCallMethod(call, allowsGet: true)
            return .listZones(db, try caller("Listing zones"))
        case "changes/database":
            try checkCallMethod(call)
            let request = try decodeBody(WireDatabaseChangesRequest.self, call)
            return .databaseChanges(db, try signedInUser(call, "Fetching database changes"), request)
        case "records/lookup":
            let who = try caller("Looking up records")
            try checkCallMethod(call)
            let request = try decodeBody(WireRecordsLookupRequest.self, call)
            try checkOperationCount(request.records.count, "records to look up")
            let zoneID = request.zoneID.map(RecordZoneID.init) ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
            return .lookupRecords(db, who, request, zoneID, getCurrentSyncToken: call.flag("getCurrentSyncToken"))
        default:  // records/query
            let who = try caller("Querying records")
            try checkCallMethod(call)
            let request = try decodeBody(WireRecordsQueryRequest.self, call)
            let query = QueryRequest(
                query: try request.query.recordQuery(), zoneID: request.zoneID.map(RecordZoneID.init), zoneWide: request.zoneWide ?? false,
                resultsLimit: request.resultsLimit, continuationMarker: request.continuationMarker, desiredKeys: request.desiredKeys)
            return .queryRecords(db, who, request, query, getCurrentSyncToken: call.flag("getCurrentSyncToken"))
        }
    }

    /// An answer encoded from values the step produced (never the engine).
    private static func encoded<T: Encodable>(_ value: T, tokenIn: ServerChangeToken? = nil, tokenOut: ServerChangeToken? = nil) -> APIAnswer {
        do {
            return APIAnswer(body: try WireJSON.encode(value), tokenIn: tokenIn, tokenOut: tokenOut)
        } catch {
            return .error(error)
        }
    }

    /// The engine step of a prepared call (under the state lock). The
    /// answer is worded later, from the results, unless the engine holds
    /// asset files (their download URLs read the engine): then now.
    package func step(_ prepared: PreparedCall) -> StepOutcome {
        switch prepared.route {
        case .whole:
            return wholeStep(prepared)
        case .refused(let answer):
            return StepOutcome(answer)
        case .modifyRecords(let db, let plan):
            let results: [Result<RecordOperationResult, CloudError>]
            do { results = try applyModifyRecords(plan, db) } catch { return StepOutcome(.error(error)) }
            let changed = Self.modifyRecordsChanged(results, plan)
            guard answering else { return StepOutcome(APIAnswer(body: Data(), changedState: changed)) }
            if core.engine.hasAssets {
                return StepOutcome(Self.modifyRecordsAnswer(results, plan, db, fill: { withDownloadURLs($0, db) }))
            }
            return StepOutcome(changedState: changed) { Self.modifyRecordsAnswer(results, plan, db, fill: { $0 }) }
        case .zoneChanges(let db, let caller, let request, let requests):
            let results: [Result<ZoneChangesBatch, CloudError>]
            do { results = try core.engine.fetchRecordZoneChanges(caller: caller, database: db, requests) } catch { return StepOutcome(.error(error)) }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            if core.engine.hasAssets {
                return StepOutcome(Self.zoneChangesAnswer(results, request, fill: { withDownloadURLs($0, db) }))
            }
            return StepOutcome(changedState: false) { Self.zoneChangesAnswer(results, request, fill: { $0 }) }
        case .listZones(let db, let caller):
            let listing: [ZoneListing]
            do { listing = try core.engine.listRecordZones(caller: caller, database: db) } catch { return StepOutcome(.error(error)) }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            return StepOutcome(changedState: false) {
                Self.encoded(WireZonesResponse(zones: listing.map { .success(WireZone(zoneID: WireZoneID($0.zoneID), syncToken: $0.syncToken)) }))
            }
        case .databaseChanges(let db, let caller, let request):
            let batch: DatabaseChangesBatch
            do {
                batch = try core.engine.fetchDatabaseChanges(caller: caller, database: db, since: request.syncToken, resultsLimit: request.resultsLimit)
            } catch {
                return StepOutcome(.error(error))
            }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            return StepOutcome(changedState: false) {
                Self.encoded(WireDatabaseChanges(batch), tokenIn: request.syncToken, tokenOut: batch.serverChangeToken)
            }
        case .lookupRecords(let db, let caller, let request, let zoneID, let wantsToken):
            let results: [Result<Record, CloudError>]
            do {
                results = try core.engine.lookupRecords(
                    caller: caller, database: db, zoneID: zoneID, recordNames: request.records.map(\.recordName), desiredKeys: request.desiredKeys)
            } catch {
                return StepOutcome(.error(error))
            }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            let token = wantsToken ? currentSyncToken(db, caller: caller, zoneID: zoneID) : nil
            if core.engine.hasAssets { return StepOutcome(Self.lookupAnswer(results, request, token, fill: { withDownloadURLs($0, db) })) }
            return StepOutcome(changedState: false) { Self.lookupAnswer(results, request, token, fill: { $0 }) }
        case .queryRecords(let db, let caller, let request, let query, let wantsToken):
            let result: QueryResult
            do { result = try core.engine.queryRecords(caller: caller, database: db, query) } catch { return StepOutcome(.error(error)) }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            if core.engine.hasAssets { return StepOutcome(Self.queryAnswer(result, request, wantsToken, fill: { withDownloadURLs($0, db) })) }
            return StepOutcome(changedState: false) { Self.queryAnswer(result, request, wantsToken, fill: { $0 }) }
        }
    }

    /// The answer of `records/lookup`, from the engine's results alone (`fill` adds asset download URLs).
    package static func lookupAnswer(
        _ results: [Result<Record, CloudError>], _ request: WireRecordsLookupRequest, _ token: ServerChangeToken?, fill: (WireRecord) -> WireRecord
    ) -> APIAnswer {
        let numbers = request.numbersAsStrings ?? false
        let items: [WireResult<WireRecord>] = results.map { result in
            switch result {
            case .success(let record):
                let wire = fill(WireRecord(record))
                return .success(numbers ? wire.numbersAsStrings() : wire)
            case .failure(let error): return .failure(WireError(error))
            }
        }
        return encoded(WireRecordsResponse(records: items, syncToken: token))
    }

    /// The answer of `records/query`, from the engine's result alone (`fill` adds asset download URLs).
    package static func queryAnswer(
        _ result: QueryResult, _ request: WireRecordsQueryRequest, _ wantsToken: Bool, fill: (WireRecord) -> WireRecord
    ) -> APIAnswer {
        let numbers = request.numbersAsStrings ?? false
        let zoneWide = (request.zoneWide ?? false) && request.zoneID == nil
        return encoded(WireRecordsQueryResponse(
            records: result.records.map { record in
                var wire = fill(WireRecord(record))
                if zoneWide { wire.zoneID = WireZoneID(record.recordID.zoneID) }
                return .success(numbers ? wire.numbersAsStrings() : wire)
            },
            continuationMarker: result.continuationMarker,
            syncToken: wantsToken ? result.syncToken : nil))
    }
}
