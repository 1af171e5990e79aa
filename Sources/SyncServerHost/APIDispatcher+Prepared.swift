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
    /// The call's route in ``WebServicesRoute/table`` (`nil` for a refused
    /// call) and its path's arguments: found once, before the lock.
    package var served: WebServicesRoute? = nil
    package var arguments = RouteArguments()

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

    /// Makes the `records/modify` plan for a caller.
    package typealias ModifyPlanMaker = (Caller) throws(CloudError) -> ModifyRecordsPlan

    /// ``prepare(_:)`` with the `records/modify` plan made by `modifyPlan`
    /// (from the body's JSON, or from a journal row's binary form: `JournaledCallBody`).
    /// The call's route (``WebServicesRoute/table``) is found once: a route
    /// with a preparation of its own gets its step, any other a ``PreparedCall/Route/whole``
    /// one with its body decoded ahead; a path no route has, or a method its
    /// route does not take, is refused here, before the lock.
    package static func prepare(_ call: APICall, modifyPlan: ModifyPlanMaker) -> PreparedCall {
        do throws(CloudError) {
            switch try route(call, TextChecks.pathSegments(call.path)) {
            case .refused(let answer):
                return PreparedCall(call: call, route: .refused(answer))
            case .found(let route, let arguments):
                guard case .dispatcher(_, let prepare?) = route.handling else {
                    return PreparedCall(call: call, route: .whole, decodedBody: route.body?.decodeAhead?(call), served: route, arguments: arguments)
                }
                return PreparedCall(call: call, route: try prepare(call, arguments, modifyPlan), served: route, arguments: arguments)
            }
        } catch {
            return PreparedCall(call: call, route: .refused(.error(error)))
        }
    }

    /// `records/lookup`, checked and decoded.
    package static func prepareLookupRecords(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> PreparedCall.Route {
        let who = try publicOrSignedIn(call, arguments, "Looking up records")
        let request = try decodeBody(WireRecordsLookupRequest.self, call)
        try checkOperationCount(request.records.count, "records to look up")
        let zoneID = request.zoneID.map(RecordZoneID.init) ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
        return .lookupRecords(arguments.database, who, request, zoneID, getCurrentSyncToken: call.flag("getCurrentSyncToken"))
    }

    /// `records/query`, checked and decoded.
    package static func prepareQueryRecords(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> PreparedCall.Route {
        let who = try publicOrSignedIn(call, arguments, "Querying records")
        let request = try decodeBody(WireRecordsQueryRequest.self, call)
        let query = QueryRequest(
            query: try request.query.recordQuery(), zoneID: request.zoneID.map(RecordZoneID.init), zoneWide: request.zoneWide ?? false,
            resultsLimit: request.resultsLimit, continuationMarker: request.continuationMarker, desiredKeys: request.desiredKeys)
        return .queryRecords(arguments.database, who, request, query, getCurrentSyncToken: call.flag("getCurrentSyncToken"))
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
        var outcome = run(prepared)
        // A route the journal does not keep never reports a change it should keep.
        if outcome.changedState, prepared.served?.journaled == false { outcome.changedState = false }
        return outcome
    }

    private func run(_ prepared: PreparedCall) -> StepOutcome {
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
