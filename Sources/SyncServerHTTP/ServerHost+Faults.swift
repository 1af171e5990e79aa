import Foundation
import SyncCore
import SyncServer

/// Faults over HTTP: the same fault plan as everywhere (in the server's
/// ``ServerCore``), applied around the engine step. Latency is real time;
/// an ambiguous commit journals the change, then drops the connection
/// without answering; read lag answers `changes/database` with the caller's
/// own token and nothing new. Item failures apply only in-process.
extension ServerHost {
    /// What happened to one request because of the fault plan.
    struct FaultedAnswer {
        var answer: APIAnswer
        /// For the request log: "fault: THROTTLED, retry in 3 s".
        var note: String?
        /// An ambiguous commit: applied and journaled; the connection must close without an answer.
        var dropConnection = false
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
    func performWithFaults(_ call: APICall) async -> FaultedAnswer {
        // No fault plan was ever installed: nothing to match (and no body to read for zone names).
        guard faultsInstalled.load(ordering: .relaxed), let faultCall = Self.faultCall(call) else {
            return FaultedAnswer(answer: await performAsync(call))
        }
        let now = clock.now()
        let decision = state.withLock { (state: inout State) -> FaultInjector.Decision? in state.core.faultDecision(for: faultCall, now: now) }
        guard let decision else { return FaultedAnswer(answer: await performAsync(call)) }
        let note = "fault: " + decision.faults.map(\.detail).joined(separator: "; ")
        if decision.latency > 0 { try? await Task.sleep(nanoseconds: UInt64(decision.latency) * 1_000_000) }
        switch decision.failure {
        case .error(let error)?:
            return FaultedAnswer(answer: .error(error), note: note)
        case .ambiguousCommit?:
            _ = await performAsync(call)
            return FaultedAnswer(answer: .error(CloudError.answerLost(faultCall.operation)), note: note + " (connection dropped)", dropConnection: true)
        case .itemFailures?, nil:
            if decision.readLag != nil, faultCall.operation == "changes/database",
               let body = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any], let token = body["syncToken"] as? String, !token.isEmpty,
               let data = try? WireJSON.encode(WireDatabaseChanges(zones: [], syncToken: ServerChangeToken(rawValue: token), moreComing: false)) {
                return FaultedAnswer(answer: APIAnswer(body: data), note: note)
            }
            return FaultedAnswer(answer: await performAsync(call), note: note)
        }
    }

    /// The call as the fault plan matches it: `/database/1/{container}/{environment}/{database}/{a}/{b}`
    /// (zone names read from the body); other paths are never faulted.
    static func faultCall(_ call: APICall) -> FaultCall? {
        let parts = call.path.split(separator: "/").map(String.init)
        guard parts.count == 7, parts[0] == "database", let user = call.user else { return nil }
        var zones: [String] = []
        if let body = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any] {
            func name(_ value: Any?) -> String? { ((value as? [String: Any])?["zoneID"] as? [String: Any])?["zoneName"] as? String }
            if let zone = (body["zoneID"] as? [String: Any])?["zoneName"] as? String { zones.append(zone) }
            for item in (body["zones"] as? [Any]) ?? [] { if let zone = name(item) { zones.append(zone) } }
            for item in (body["operations"] as? [Any]) ?? [] {
                if let zone = name((item as? [String: Any])?["zone"]) { zones.append(zone) }
            }
        }
        return FaultCall(operation: parts[5] + "/" + parts[6], database: DatabaseScope(rawValue: parts[4]), zoneNames: zones, user: user, deviceID: call.deviceID)
    }
}
