import SyncCore

/// Decides, call by call, which faults of the installed rules fire.
///
/// It lives next to the ``ServerEngine`` and the ``PushEngine`` (in
/// ``ServerCore``, under the server's one lock), so every surface — the
/// in-process service, the HTTP server and the push channel — consults the
/// same rules. Its only randomness is its own `SeededRandom`, derived from
/// the server's seed: the same seed, plan and calls give the same faults.
///
/// Rules are looked at in the order they were added. Latency rules add up;
/// of the rules that answer with an error (or lose the answer), the first
/// that fires wins and the later ones are not consulted for that call.
public final class FaultInjector {
    /// A rule as installed: its number, when it was added, how often it matched and fired.
    public struct ActiveRule: Sendable, Hashable, CustomStringConvertible {
        public var id: Int
        public var rule: FaultRule
        public var addedAt: Milliseconds
        /// Calls it matched inside its time window.
        public var matched: Int
        /// Times it fired.
        public var fired: Int

        public var description: String { "#\(id) \(rule) — fired \(fired)×" }
    }

    /// What the fault layer does to one server call.
    public struct Decision: Sendable, Hashable {
        /// Delay before the call runs.
        public var latency: Milliseconds = 0
        /// How the call fails, if it does.
        public var failure: Failure?
        /// `changes/database`: hide changes younger than this.
        public var readLag: Milliseconds?
        /// The faults this decision stands for, to mark the request (the HTTP request log).
        public var faults: [InjectedFault] = []

        public var isNone: Bool { latency == 0 && failure == nil && readLag == nil }
    }

    public enum Failure: Sendable, Hashable {
        /// Answer with this error; nothing is applied.
        case error(CloudError)
        /// Some items of the batch fail with `code`; the others are applied.
        case itemFailures(code: CloudError.Code, retryAfter: Double?)
        /// Apply the call, then lose the answer.
        case ambiguousCommit
    }

    public private(set) var rules: [ActiveRule] = []
    /// How many faults of each kind fired so far.
    public private(set) var counts: [FaultKind: Int] = [:]
    private var nextID = 1
    private var random: SeededRandom
    private var undrained: [InjectedFault] = []
    /// When each user's databases last changed (for read lag).
    private var lastChangeAt: [String: Milliseconds] = [:]
    /// The latest push faults of each device, oldest first (for the inspector's push feed).
    private var pushMarks: [String: [PushFaultMark]] = [:]
    /// How many push faults ``pushFaultMarks(for:)`` keeps per device.
    public static let pushMarkLimit = 500

    public init(seed: UInt64) {
        random = SeededRandom(seed: seed).derived(0x4641_554C_54)  // "FAULT"
    }

    /// Whether no rule is installed (then nothing is ever injected).
    public var isEmpty: Bool { rules.isEmpty }

    /// Whether a push fault rule is installed.
    public var hasPushRules: Bool { rules.contains { $0.rule.effect.kind.isPush } }

    // MARK: Rules

    /// Adds a rule; returns its number.
    @discardableResult
    public func add(_ rule: FaultRule, now: Milliseconds) -> Int {
        let id = nextID
        nextID += 1
        rules.append(ActiveRule(id: id, rule: rule, addedAt: now, matched: 0, fired: 0))
        return id
    }

    /// Adds every rule of a plan, in order; returns their numbers.
    @discardableResult
    public func add(_ plan: FaultPlan, now: Milliseconds) -> [Int] {
        plan.rules.map { add($0, now: now) }
    }

    /// Removes one rule; false when there is no rule with that number.
    @discardableResult
    public func remove(id: Int) -> Bool {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return false }
        rules.remove(at: index)
        return true
    }

    /// Removes every rule (or those of these kinds); returns how many went.
    @discardableResult
    public func clear(kinds: Set<FaultKind>? = nil) -> Int {
        let before = rules.count
        if let kinds {
            rules.removeAll { kinds.contains($0.rule.effect.kind) }
        } else {
            rules.removeAll()
        }
        return before - rules.count
    }

    /// The faults injected since the last call, oldest first.
    public func drainInjected() -> [InjectedFault] {
        defer { undrained = [] }
        return undrained
    }

    // MARK: Deciding

    /// What happens to a server call. Call only when ``isEmpty`` is false.
    public func decide(_ call: FaultCall, now: Milliseconds) -> Decision {
        var decision = Decision()
        for index in rules.indices where rules[index].rule.applies(to: call.operation) {
            let effect = rules[index].rule.effect
            switch effect {
            case .latency(let distribution):
                guard fires(index, call, now: now) else { continue }
                let delay = distribution.sample(&random)
                decision.latency += delay
                decision.faults.append(note(index, call, now: now, detail: "latency \(delay) ms"))
            case .readLag(let lag):
                guard let last = lastChangeAt[call.user], last > now - lag, fires(index, call, now: now) else { continue }
                decision.readLag = max(decision.readLag ?? 0, lag)
                decision.faults.append(note(index, call, now: now, detail: "read lag: changes of the last \(lag) ms not shown yet"))
            case .itemFailures(let code, let retryAfter):
                guard decision.failure == nil, fires(index, call, now: now) else { continue }
                decision.failure = .itemFailures(code: code, retryAfter: retryAfter)
                decision.faults.append(note(index, call, now: now, detail: effect.summary))
            case .ambiguousCommit:
                guard decision.failure == nil, fires(index, call, now: now) else { continue }
                decision.failure = .ambiguousCommit
                decision.faults.append(note(index, call, now: now, detail: effect.summary))
            case .pushDrop, .pushDelay, .pushDuplicate, .pushReorder:
                continue
            default:
                guard decision.failure == nil, let error = effect.error(operation: call.operation), fires(index, call, now: now) else { continue }
                decision.failure = .error(error)
                decision.faults.append(note(index, call, now: now, detail: effect.summary))
            }
        }
        return decision
    }

    /// The push faults that fire for one notification queued for a device.
    public func decidePush(_ call: FaultCall, now: Milliseconds) -> [FaultEffect] {
        var effects: [FaultEffect] = []
        for index in rules.indices where rules[index].rule.effect.kind.isPush && rules[index].rule.applies(to: call.operation) {
            if fires(index, call, now: now) { effects.append(rules[index].rule.effect) }
        }
        return effects
    }

    /// Records a push fault that took effect (the push engine knows the notification).
    public func notePush(_ effect: FaultEffect, call: FaultCall, notificationID: String, now: Milliseconds) -> InjectedFault {
        let id = rules.first { $0.rule.effect == effect }?.id ?? 0
        let fault = InjectedFault(
            time: now, ruleID: id, kind: effect.kind, operation: "push", user: call.user, deviceID: call.deviceID,
            detail: "\(effect.summary) \(notificationID)")
        counts[effect.kind, default: 0] += 1
        keep(fault)
        return fault
    }

    /// Remembers a push fault that hit a notification for a device.
    func rememberPushFault(_ effect: FaultEffect, deviceID: String, notification: CloudNotification, now: Milliseconds) {
        var marks = pushMarks[deviceID, default: []]
        marks.append(PushFaultMark(time: now, deviceID: deviceID, notification: notification, kind: effect.kind, detail: effect.summary))
        if marks.count > 2 * Self.pushMarkLimit { marks.removeFirst(marks.count - Self.pushMarkLimit) }
        pushMarks[deviceID] = marks
    }

    /// The latest push faults that hit a device's notifications, oldest first
    /// (at most ``pushMarkLimit``).
    public func pushFaultMarks(for deviceID: String) -> [PushFaultMark] {
        Array((pushMarks[deviceID] ?? []).suffix(Self.pushMarkLimit))
    }

    /// Which items of a batch of `count` fail: each with probability ½, at least one.
    public func failingItems(count: Int) -> [Bool] {
        guard count > 0 else { return [] }
        var failing = (0..<count).map { _ in random.next() & 1 == 1 }
        if !failing.contains(true) { failing[Int(random.next() % UInt64(count))] = true }
        return failing
    }

    /// A user's databases changed now (for read lag).
    public func noteChange(users: some Sequence<String>, now: Milliseconds) {
        for user in users { lastChangeAt[user] = now }
    }

    private func fires(_ index: Int, _ call: FaultCall, now: Milliseconds) -> Bool {
        let active = rules[index]
        let frequency = active.rule.frequency
        guard active.rule.match.matches(call) else { return false }
        let age = now - active.addedAt
        if let start = frequency.startAfter, age < start { return false }
        if let duration = frequency.duration, age >= (frequency.startAfter ?? 0) + duration { return false }
        if let times = frequency.times, active.fired >= times { return false }
        rules[index].matched += 1
        if let n = frequency.everyNth, n > 1, rules[index].matched % n != 0 { return false }
        if let p = frequency.probability {
            let draw = Double(random.next() >> 11) / Double(1 << 53)
            if draw >= p { return false }
        }
        rules[index].fired += 1
        return true
    }

    /// Keeps a fault for ``drainInjected()``; nobody draining (a long-running
    /// server) keeps at most the latest 10,000.
    private func keep(_ fault: InjectedFault) {
        undrained.append(fault)
        if undrained.count > 20_000 { undrained.removeFirst(undrained.count - 10_000) }
    }

    private func note(_ index: Int, _ call: FaultCall, now: Milliseconds, detail: String) -> InjectedFault {
        let kind = rules[index].rule.effect.kind
        counts[kind, default: 0] += 1
        let fault = InjectedFault(
            time: now, ruleID: rules[index].id, kind: kind, operation: call.operation, user: call.user, deviceID: call.deviceID, detail: detail)
        keep(fault)
        return fault
    }
}
