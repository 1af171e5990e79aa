import Foundation
import SyncCore
import SyncWire

/// A fault rule as JSON, for the admin API (`/admin/1/{container}/{environment}/faults`)
/// and `syncscope client faults`:
/// `{"kind": "throttled", "retryAfter": 3, "operations": ["records/modify"], "device": "iPhone", "times": 2}`.
/// Durations are whole milliseconds (`latencyMs`, `lagMs`, `delayMs`, `afterMs`, `forMs`); `retryAfter` is in seconds.
public struct WireFaultRule: Codable, Sendable, Hashable {
    public var id: Int?
    public var kind: String
    public var retryAfter: Double?
    public var code: String?
    public var latencyMs: Int64?
    public var latencyMinMs: Int64?
    public var latencyMaxMs: Int64?
    public var latencyMeanMs: Int64?
    public var lagMs: Int64?
    public var delayMs: Int64?
    public var operations: [String]?
    public var database: String?
    public var zone: String?
    public var user: String?
    public var device: String?
    public var probability: Double?
    public var every: Int?
    public var times: Int?
    public var afterMs: Int64?
    public var forMs: Int64?
    /// In answers: how often the rule matched and fired, and what it does in words.
    public var matched: Int?
    public var fired: Int?
    public var summary: String?

    public init(_ rule: FaultRule, id: Int? = nil, matched: Int? = nil, fired: Int? = nil) {
        self.id = id
        kind = rule.effect.kind.rawValue
        switch rule.effect {
        case .throttled(let s), .zoneBusy(let s): retryAfter = s
        case .serviceUnavailable(let s): retryAfter = s
        case .itemFailures(let code, let s):
            self.code = code.rawValue
            retryAfter = s
        case .latency(.fixed(let ms)): latencyMs = ms
        case .latency(.uniform(let lo, let hi)):
            latencyMinMs = lo
            latencyMaxMs = hi
        case .latency(.exponential(let mean)): latencyMeanMs = mean
        case .readLag(let ms): lagMs = ms
        case .pushDelay(let ms): delayMs = ms
        default: break
        }
        operations = rule.match.operations.isEmpty ? nil : rule.match.operations
        database = rule.match.database?.rawValue
        zone = rule.match.zone
        user = rule.match.user
        device = rule.match.device
        probability = rule.frequency.probability
        every = rule.frequency.everyNth
        times = rule.frequency.times
        afterMs = rule.frequency.startAfter
        forMs = rule.frequency.duration
        self.matched = matched
        self.fired = fired
        summary = rule.description
    }

    /// The rule it describes, or an error naming what is wrong.
    public func rule() throws(CloudError) -> FaultRule {
        func bad(_ text: String) -> CloudError { CloudError(.invalidArguments, "Fault rule: \(text).") }
        guard let kind = FaultKind(rawValue: kind) else {
            throw bad("unknown kind '\(self.kind)'; kinds are \(FaultKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let retryAfter, !(retryAfter >= 0 && retryAfter <= 86_400) { throw bad("retryAfter must be 0 to 86400 seconds") }
        for value in [latencyMs, latencyMinMs, latencyMaxMs, latencyMeanMs, lagMs, delayMs, afterMs, forMs].compactMap({ $0 }) where value < 0 || value > 86_400_000 {
            throw bad("durations must be 0 to 86400000 ms, got \(value)")
        }
        let effect: FaultEffect
        switch kind {
        case .throttled: effect = .throttled(retryAfter: retryAfter ?? 3)
        case .zoneBusy: effect = .zoneBusy(retryAfter: retryAfter ?? 1)
        case .serviceUnavailable: effect = .serviceUnavailable(retryAfter: retryAfter)
        case .quotaExceeded: effect = .quotaExceeded
        case .internalError: effect = .internalError
        case .itemFailures:
            let code = try code.map { (word) throws(CloudError) -> CloudError.Code in
                guard let found = CloudError.Code(rawValue: word) ?? CloudError.Code.allCases.first(where: { $0.serverErrorCode == word }) else {
                    throw bad("unknown error code '\(word)'")
                }
                return found
            } ?? .zoneBusy
            effect = .itemFailures(code: code, retryAfter: retryAfter)
        case .ambiguousCommit: effect = .ambiguousCommit
        case .latency:
            if let latencyMs {
                effect = .latency(.fixed(latencyMs))
            } else if let latencyMeanMs {
                effect = .latency(.exponential(mean: latencyMeanMs))
            } else if let lo = latencyMinMs, let hi = latencyMaxMs, lo <= hi {
                effect = .latency(.uniform(min: lo, max: hi))
            } else {
                throw bad("a latency rule needs latencyMs, latencyMeanMs, or latencyMinMs ≤ latencyMaxMs")
            }
        case .pushDrop: effect = .pushDrop
        case .pushDelay:
            guard let delayMs else { throw bad("a pushDelay rule needs delayMs") }
            effect = .pushDelay(delayMs)
        case .pushDuplicate: effect = .pushDuplicate
        case .pushReorder: effect = .pushReorder
        case .readLag:
            guard let lagMs else { throw bad("a readLag rule needs lagMs") }
            effect = .readLag(lagMs)
        }
        for operation in operations ?? [] where !FaultMatch.knownOperations.contains(operation) {
            throw bad("unknown operation '\(operation)'; operations are \(FaultMatch.knownOperations.joined(separator: ", "))")
        }
        var scope: DatabaseScope?
        if let database {
            guard let value = DatabaseScope(rawValue: database) else { throw bad("database must be public, private or shared, not '\(database)'") }
            scope = value
        }
        if let probability, !(0...1).contains(probability) { throw bad("probability must be 0 to 1, got \(probability)") }
        if let every, every < 1 { throw bad("every must be at least 1") }
        if let times, times < 1 { throw bad("times must be at least 1") }
        return FaultRule(
            effect, match: FaultMatch(operations: operations ?? [], database: scope, zone: zone, user: user, device: device),
            frequency: FaultFrequency(probability: probability, everyNth: every, times: times, startAfter: afterMs, duration: forMs))
    }
}

extension ServerCore {
    /// Answers a faults admin request (the rules are run-time settings: not journaled).
    public func handleFaults(_ request: WireFaultsRequest, now: Milliseconds) throws(CloudError) -> WireFaultsResponse {
        var added: [Int]?
        var removed: Int?
        switch request.operation ?? "list" {
        case "list":
            break
        case "add":
            guard let rules = request.rules, !rules.isEmpty else {
                throw CloudError(.invalidArguments, "faults add needs \"rules\": a list of at least one rule, such as {\"kind\": \"throttled\", \"retryAfter\": 3}.")
            }
            var parsed: [FaultRule] = []
            for rule in rules { parsed.append(try rule.rule()) }
            added = faultInjector().add(FaultPlan(parsed), now: now)
        case "remove":
            guard let id = request.id else { throw CloudError(.invalidArguments, "faults remove needs \"id\": the rule's number from faults list.") }
            guard faults?.remove(id: id) == true else { throw CloudError(.unknownItem, "There is no fault rule #\(id); faults list shows the rules in force.") }
            removed = 1
        case "clear":
            var kinds: Set<FaultKind>?
            if let names = request.kinds, !names.isEmpty {
                var set = Set<FaultKind>()
                for name in names {
                    guard let kind = FaultKind(rawValue: name) else {
                        throw CloudError(.invalidArguments, "Unknown fault kind '\(name)'; kinds are \(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")).")
                    }
                    set.insert(kind)
                }
                kinds = set
            }
            removed = faults?.clear(kinds: kinds) ?? 0
        default:
            throw CloudError(.invalidArguments, "Unknown faults operation '\(request.operation ?? "")'; use list, add, remove or clear.")
        }
        let rules = (faults?.rules ?? []).map { WireFaultRule($0.rule, id: $0.id, matched: $0.matched, fired: $0.fired) }
        var injected: [String: Int] = [:]
        for (kind, count) in faults?.counts ?? [:] { injected[kind.rawValue] = count }
        return WireFaultsResponse(rules: rules, injected: injected, added: added, removed: removed)
    }
}
