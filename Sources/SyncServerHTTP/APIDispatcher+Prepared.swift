import Foundation
import SyncCore
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
/// take all three steps; the others are prepared as ``Route/whole`` and do
/// everything in the step, as one piece.
struct PreparedCall: Sendable {
    var call: APICall
    var route: Route

    enum Route: Sendable {
        /// Decoded, stepped and answered in one piece under the lock.
        case whole
        /// Refused before the engine saw it (a malformed request).
        case refused(APIAnswer)
        case modifyRecords(DatabaseID, APIDispatcher.ModifyRecordsPlan)
        case zoneChanges(DatabaseID, Caller, WireZoneChangesRequest, [ZoneChangesRequest])
    }
}

/// What the engine step did: whether it changed the state (then the journal
/// keeps the call), and how to word its answer.
struct StepOutcome: Sendable {
    var changedState: Bool
    /// Reads only the step's results, never the engine: call it after the lock is released.
    var answer: @Sendable () -> APIAnswer

    init(changedState: Bool, answer: @escaping @Sendable () -> APIAnswer) {
        self.changedState = changedState
        self.answer = answer
    }

    /// An answer already worded.
    init(_ answer: APIAnswer) {
        changedState = answer.changedState
        self.answer = { answer }
    }
}

extension APIDispatcher {
    /// Checks and decodes a call, outside the state lock. The checks run in
    /// the same order as in ``answer(_:)``, so a malformed call gets the same error.
    static func prepare(_ call: APICall) -> PreparedCall {
        prepare(call) { caller throws(CloudError) in try modifyRecordsPlan(call, caller: caller) }
    }

    /// ``prepare(_:)`` with the `records/modify` plan made by `modifyPlan`
    /// (from the body's JSON, or from a journal row's binary form: ``JournaledCall``).
    static func prepare(_ call: APICall, modifyPlan: (Caller) throws(CloudError) -> ModifyRecordsPlan) -> PreparedCall {
        let parts = call.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 7, parts[0] == "database", parts[1] == "1" else { return PreparedCall(call: call, route: .whole) }
        let saving = parts[5] == "records" && parts[6] == "modify"
        let fetching = parts[5] == "changes" && parts[6] == "zone"
        guard saving || fetching else { return PreparedCall(call: call, route: .whole) }
        do throws(CloudError) {
            let db = DatabaseID(
                container: try parseContainer(String(parts[2])), environment: try parseEnvironment(String(parts[3])),
                scope: try parseScope(String(parts[4])))
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

    /// The engine step of a prepared call (under the state lock). The
    /// answer is worded later, from the results, unless the engine holds
    /// asset files (their download URLs read the engine): then now.
    func step(_ prepared: PreparedCall) -> StepOutcome {
        switch prepared.route {
        case .whole:
            return StepOutcome(answer(prepared.call))
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
        }
    }
}
