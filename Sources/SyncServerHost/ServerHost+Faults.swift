import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Faults over HTTP: the same fault plan as everywhere (in the server's
/// ``ServerCore``), applied around the engine step. Latency is real time;
/// an ambiguous commit journals the change, then drops the connection
/// without answering; read lag answers `changes/database` with the caller's
/// own token and nothing new; item failures fail some items of a
/// `records/modify` batch in Apple's per-record error shape and apply (and
/// journal) only the others.
extension ServerHost {
    /// What happened to one request because of the fault plan.
    package struct FaultedAnswer {
        package var answer: APIAnswer
        /// For the request log: "fault: THROTTLED, retry in 3 s".
        package var note: String?
        /// An ambiguous commit: applied and journaled; the connection must close without an answer.
        package var dropConnection = false
    }

    /// Adds fault rules (from `serve --faults FILE.yaml`); returns their numbers.
    @discardableResult
    public func addFaults(_ plan: FaultPlan) -> [Int] {
        let now = clock.now()
        faultsInstalled.store(true, ordering: .relaxed)
        return state.withLock { (state: inout State) -> [Int] in state.core.faultInjector().add(plan, now: now) }
    }

    /// The rules in force.
    public var faultRules: [FaultInjector.ActiveRule] {
        state.withLock { (state: inout State) -> [FaultInjector.ActiveRule] in state.core.faults?.rules ?? [] }
    }

    /// Performs a call through the fault plan.
    package func performWithFaults(_ call: APICall) async -> FaultedAnswer {
        // No fault plan was ever installed: nothing to match (and no body to read for zone names).
        guard faultsInstalled.load(ordering: .relaxed), let faultCall = Self.faultCall(call) else {
            return FaultedAnswer(answer: await perform(call))
        }
        let now = clock.now()
        let decision = state.withLock { (state: inout State) -> FaultInjector.Decision? in state.core.faultDecision(for: faultCall, now: now) }
        guard let decision else { return FaultedAnswer(answer: await perform(call)) }
        let note = "fault: " + decision.faults.map(\.detail).joined(separator: "; ")
        if decision.latency > 0 { try? await Task.sleep(nanoseconds: UInt64(decision.latency) * 1_000_000) }
        switch decision.failure {
        case .error(let error)?:
            return FaultedAnswer(answer: .error(error), note: note)
        case .ambiguousCommit?:
            _ = await perform(call)
            return FaultedAnswer(answer: .error(CloudError.answerLost(faultCall.operation)), note: note + " (connection dropped)", dropConnection: true)
        case .itemFailures(let code, let retryAfter)?:
            return FaultedAnswer(answer: await performWithItemFailures(call, code: code, retryAfter: retryAfter), note: note)
        case nil:
            if decision.readLag != nil, faultCall.operation == "changes/database",
               let body = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any], let token = body["syncToken"] as? String, !token.isEmpty,
               let data = try? WireJSON.encode(WireDatabaseChanges(zones: [], syncToken: ServerChangeToken(rawValue: token), moreComing: false)) {
                return FaultedAnswer(answer: APIAnswer(body: data), note: note)
            }
            return FaultedAnswer(answer: await perform(call), note: note)
        }
    }

    /// `records/modify` with some items failed by an item-failure fault, as
    /// CloudKit answers a partly failed batch: status 200 and, in `records`,
    /// the failed items as `{"recordName", "serverErrorCode", "reason",
    /// "retryAfter"}` in their places. In a non-atomic batch the other items
    /// are applied: the call is performed (and journaled) with only those, so
    /// replaying the journal gives the same state. In an atomic batch nothing
    /// is applied and the other items fail with `ATOMIC_ERROR`. A request
    /// that cannot be read as a batch is performed as it is (and refused
    /// with the usual reason).
    package func performWithItemFailures(_ call: APICall, code: CloudError.Code, retryAfter: Double?) async -> APIAnswer {
        guard let request = try? WireJSON.decode(WireRecordsModifyRequest.self, from: call.body),
              !request.operations.isEmpty, request.operations.count <= APIDispatcher.maxOperations,
              var body = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any],
              let operations = body["operations"] as? [Any], operations.count == request.operations.count
        else { return await perform(call) }
        let failing = state.withLock { (state: inout State) -> [Bool] in state.core.faultInjector().failingItems(count: operations.count) }
        let zoneID = request.zoneID.map(RecordZoneID.init)
        func failure(_ index: Int) -> Any {
            let name = request.operations[index].record.recordName
            let error = failing[index]
                ? CloudError.injectedItemFailure(code, recordName: name, zoneID: zoneID, retryAfter: retryAfter)
                : CloudError.atomicPartnerFailed(recordName: name, zoneID: zoneID)
            return (try? JSONSerialization.jsonObject(with: WireJSON.encode(WireError(error)))) ?? [:]
        }
        func answer(_ records: [Any], from base: APIAnswer?) -> APIAnswer {
            let data = (try? JSONSerialization.data(withJSONObject: ["records": records], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            var answer = base ?? APIAnswer(body: data)
            answer.body = data
            return answer
        }
        if request.atomic ?? true || !failing.contains(false) {
            return answer(operations.indices.map(failure), from: nil)
        }
        body["operations"] = zip(operations, failing).filter { !$0.1 }.map(\.0)
        var applied = call
        applied.body = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? call.body
        let performed = await perform(applied)
        guard performed.status == 200,
              let object = try? JSONSerialization.jsonObject(with: performed.body) as? [String: Any],
              var results = (object["records"] as? [Any])?[...]
        else { return performed }
        return answer(operations.indices.map { failing[$0] ? failure($0) : (results.popFirst() ?? failure($0)) }, from: performed)
    }

    /// The call as the fault plan matches it: a call of a route the fault plan
    /// reaches (``WebServicesRoute/faultable``), by its operation's name (zone
    /// names read from the body); other calls are never faulted.
    package static func faultCall(_ call: APICall) -> FaultCall? {
        guard let user = call.user else { return nil }
        let parts = TextChecks.pathSegments(call.path)
        guard case .route(let route) = WebServicesRoute.resolve(parts), route.faultable else { return nil }
        var zones: [String] = []
        if let body = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any] {
            func name(_ value: Any?) -> String? { ((value as? [String: Any])?["zoneID"] as? [String: Any])?["zoneName"] as? String }
            if let zone = (body["zoneID"] as? [String: Any])?["zoneName"] as? String { zones.append(zone) }
            for item in (body["zones"] as? [Any]) ?? [] { if let zone = name(item) { zones.append(zone) } }
            for item in (body["operations"] as? [Any]) ?? [] {
                if let zone = name((item as? [String: Any])?["zone"]) { zones.append(zone) }
            }
        }
        return FaultCall(operation: route.operation, database: DatabaseScope(rawValue: parts[4]), zoneNames: zones, user: user, deviceID: call.deviceID)
    }
}
