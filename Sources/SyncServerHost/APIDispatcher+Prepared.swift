import Foundation
import SyncCore
import SyncWire
import SyncServer

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
            if core.engine.hasAssets || !plan.shares.isEmpty {
                return StepOutcome(Self.modifyRecordsAnswer(results, plan, db, fill: { withShareKeys(withDownloadURLs($0, db), caller: plan.caller, db, zoneID: plan.zoneID) }))
            }
            return StepOutcome(changedState: changed) { Self.modifyRecordsAnswer(results, plan, db, fill: { $0 }) }
        case .zoneChanges(let db, let caller, let request, let requests):
            let results: [Result<ZoneChangesBatch, CloudError>]
            do { results = try core.engine.fetchRecordZoneChanges(caller: caller, database: db, requests) } catch { return StepOutcome(.error(error)) }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            let shareKeys = shareKeysFill(results, caller: caller, db)
            if core.engine.hasAssets {
                return StepOutcome(Self.zoneChangesAnswer(results, request, fill: { shareKeys(withDownloadURLs($0, db)) }))
            }
            return StepOutcome(changedState: false) { Self.zoneChangesAnswer(results, request, fill: shareKeys) }
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
            let shareKeys = shareKeysFill(results, caller: caller, db)
            if core.engine.hasAssets { return StepOutcome(Self.lookupAnswer(results, request, token, fill: { shareKeys(withDownloadURLs($0, db)) })) }
            return StepOutcome(changedState: false) { Self.lookupAnswer(results, request, token, fill: shareKeys) }
        case .queryRecords(let db, let caller, let request, let query, let wantsToken):
            let result: QueryResult
            do { result = try core.engine.queryRecords(caller: caller, database: db, query) } catch { return StepOutcome(.error(error)) }
            guard answering else { return StepOutcome(APIAnswer(body: Data())) }
            let shareKeys = shareKeysFill(result.records, caller: caller, db)
            if core.engine.hasAssets { return StepOutcome(Self.queryAnswer(result, request, wantsToken, fill: { shareKeys(withDownloadURLs($0, db)) })) }
            return StepOutcome(changedState: false) { Self.queryAnswer(result, request, wantsToken, fill: shareKeys) }
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
