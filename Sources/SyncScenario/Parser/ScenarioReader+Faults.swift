import Foundation
import SyncCore
import SyncClient
import Yams

/// `faults:`, `fault:`, `clearFaults:`, a device's `retry:` and `expect: {retries: …}`.
extension ScenarioReader {
    static let faultKeys = [
        "kind", "retryAfter", "code", "latency", "lag", "delay", "operations", "database", "zone", "user", "device", "probability",
        "every", "times", "after", "for",
    ]

    /// One rule (a mapping) or a list of rules.
    func faultPlan(_ node: Node, in context: String) -> FaultPlan? {
        guard let items = list(node, what: context) else { return nil }
        var rules: [FaultRule] = []
        var ok = true
        for item in items {
            if let rule = faultRule(item, in: context) { rules.append(rule) } else { ok = false }
        }
        return ok ? FaultPlan(rules) : nil
    }

    private func faultRule(_ node: Node, in context: String) -> FaultRule? {
        guard let entries = mapping(
            node, in: context, keys: Self.faultKeys, required: ["kind"], example: "{kind: throttled, retryAfter: 3s, times: 2}")
        else { return nil }
        guard let kindNode = entries["kind"], let kind: FaultKind = choice(kindNode, what: "fault kind") else { return nil }
        var ok = true
        func seconds(_ key: String) -> Double? {
            guard let node = entries[key] else { return nil }
            if case .scalar(let scalar) = node, let value = Double(scalar.string.trimmingCharacters(in: .whitespaces)), value >= 0 {
                return value
            }
            guard let ms = duration(node, what: key) else { ok = false; return nil }
            return Double(ms) / 1000
        }
        func ms(_ key: String, required: Bool) -> Milliseconds? {
            guard let node = entries[key] else {
                if required {
                    error("a \(kind.rawValue) fault needs '\(key)'", hint: "for example {kind: \(kind.rawValue), \(key): 2s}", at: entries.node)
                    ok = false
                }
                return nil
            }
            guard let value = milliseconds(node, what: key) else { ok = false; return nil }
            return value
        }
        let effect: FaultEffect
        switch kind {
        case .throttled: effect = .throttled(retryAfter: seconds("retryAfter") ?? 3)
        case .zoneBusy: effect = .zoneBusy(retryAfter: seconds("retryAfter") ?? 1)
        case .serviceUnavailable: effect = .serviceUnavailable(retryAfter: seconds("retryAfter"))
        case .quotaExceeded: effect = .quotaExceeded
        case .internalError: effect = .internalError
        case .itemFailures:
            var code = CloudError.Code.zoneBusy
            if let node = entries["code"] {
                if let word = name(node, what: "code"),
                   let found = CloudError.Code(rawValue: word) ?? CloudError.Code.allCases.first(where: { $0.serverErrorCode == word }) {
                    code = found
                } else {
                    error("unknown error code in 'code'", hint: "for example zoneBusy or ZONE_BUSY", at: node)
                    ok = false
                }
            }
            effect = .itemFailures(code: code, retryAfter: seconds("retryAfter"))
        case .ambiguousCommit: effect = .ambiguousCommit
        case .latency:
            guard let node = entries["latency"] else {
                error("a latency fault needs 'latency'", hint: "for example latency: 200ms, {min: 10ms, max: 300ms} or {mean: 100ms}", at: entries.node)
                return nil
            }
            guard let distribution = latency(node) else { return nil }
            effect = .latency(distribution)
        case .pushDrop: effect = .pushDrop
        case .pushDelay: effect = .pushDelay(ms("delay", required: true) ?? 0)
        case .pushDuplicate: effect = .pushDuplicate
        case .pushReorder: effect = .pushReorder
        case .readLag: effect = .readLag(ms("lag", required: true) ?? 0)
        }
        var match = FaultMatch()
        if let node = entries["operations"], let names = names(node, what: "operations") {
            for (name, item) in zip(names, list(node, what: "operations") ?? []) where !FaultMatch.knownOperations.contains(name) {
                error(
                    "unknown operation '\(name)' in \(context)",
                    hint: Suggestions.hint(for: name, in: FaultMatch.knownOperations, otherwise: "operations are \(Suggestions.list(FaultMatch.knownOperations, conjunction: "or"))"),
                    at: item)
                ok = false
            }
            match.operations = names
        }
        if let node = entries["database"] {
            if let scope: DatabaseScope = choice(node, what: "database") { match.database = scope } else { ok = false }
        }
        if let node = entries["zone"] { match.zone = name(node, what: "zone") }
        if let node = entries["user"] { match.user = user(node) }
        if let node = entries["device"] {
            if let device = device(node) { match.device = device } else { ok = false }
        }
        var frequency = FaultFrequency()
        if let node = entries["probability"] {
            if case .scalar(let scalar) = node, let p = Double(scalar.string.trimmingCharacters(in: .whitespaces)), (0...1).contains(p) {
                frequency.probability = p
            } else {
                error("probability must be a number from 0 to 1, got \(Self.describe(node))", at: node)
                ok = false
            }
        }
        if let node = entries["every"] { frequency.everyNth = wholeNumber(node, what: "every", atLeast: 1) }
        if let node = entries["times"] { frequency.times = wholeNumber(node, what: "times", atLeast: 1) }
        frequency.startAfter = ms("after", required: false)
        frequency.duration = ms("for", required: false)
        guard ok else { return nil }
        return FaultRule(effect, match: match, frequency: frequency)
    }

    private func latency(_ node: Node) -> LatencyDistribution? {
        if case .mapping = node {
            guard let entries = mapping(node, in: "latency", keys: ["min", "max", "mean"], example: "{min: 10ms, max: 300ms}") else { return nil }
            if let meanNode = entries["mean"] {
                return milliseconds(meanNode, what: "mean").map { .exponential(mean: $0) }
            }
            guard let minNode = entries["min"], let maxNode = entries["max"] else {
                error("latency needs 'min' and 'max', or 'mean'", hint: "for example {min: 10ms, max: 300ms}", at: node)
                return nil
            }
            guard let low = milliseconds(minNode, what: "min"), let high = milliseconds(maxNode, what: "max") else { return nil }
            guard low <= high else {
                error("latency's min (\(low) ms) is more than its max (\(high) ms)", at: node)
                return nil
            }
            return .uniform(min: low, max: high)
        }
        return milliseconds(node, what: "latency").map { .fixed($0) }
    }

    /// `clearFaults: all` or a list of kinds.
    func clearFaults(_ node: Node) -> StepKind? {
        if case .scalar(let scalar) = node, scalar.string.trimmingCharacters(in: .whitespaces) == "all" { return .clearFaults([]) }
        guard let items = list(node, what: "clearFaults") else { return nil }
        var kinds: [FaultKind] = []
        for item in items {
            guard let kind: FaultKind = choice(item, what: "fault kind") else { return nil }
            kinds.append(kind)
        }
        return .clearFaults(kinds)
    }

    /// A device's `retry:`: `standard`, `naive` (retries at once, ignores retryAfter) or `never`.
    func retryPolicy(_ node: Node) -> RetryPolicy? {
        choice(node, what: "retry", [("standard", RetryPolicy.standard), ("naive", RetryPolicy.naive), ("never", RetryPolicy.never)])
    }

    /// `expect: {retries: {device: iPhone, count: 2, code: THROTTLED, waited: 6s, honoredRetryAfter: true}}`.
    func retries(_ node: Node) -> RetriesExpectation? {
        guard let entries = mapping(
            node, in: "retries", keys: ["device", "count", "atLeast", "atMost", "code", "waited", "honoredRetryAfter"], required: ["device"],
            example: "{device: iPhone, count: 2, code: THROTTLED, waited: 6s}")
        else { return nil }
        guard let deviceNode = entries["device"], let device = device(deviceNode) else { return nil }
        var check = RetriesExpectation(device: device)
        if let node = entries["count"] { check.count = wholeNumber(node, what: "count", atLeast: 0) }
        if let node = entries["atLeast"] { check.atLeast = wholeNumber(node, what: "atLeast", atLeast: 0) }
        if let node = entries["atMost"] { check.atMost = wholeNumber(node, what: "atMost", atLeast: 0) }
        if let node = entries["code"], let word = name(node, what: "code") {
            if CloudError.Code(rawValue: word) != nil || CloudError.Code.allCases.contains(where: { $0.serverErrorCode == word }) {
                check.code = word
            } else {
                error("unknown error code '\(word)' in retries", hint: "for example requestRateLimited or THROTTLED", at: node)
            }
        }
        if let node = entries["waited"] { check.waited = milliseconds(node, what: "waited") }
        if let node = entries["honoredRetryAfter"] { check.honoredRetryAfter = bool(node, what: "honoredRetryAfter") }
        return check
    }
}
