import Foundation
import SyncCore

extension ServerCore {
    /// The fault injector, created on first use with the engine's seed; from
    /// then on the push channel consults it and it learns when each user's
    /// databases change (for read lag).
    public func faultInjector() -> FaultInjector {
        if let faults { return faults }
        let injector = FaultInjector(seed: engine.configuration.seed)
        faults = injector
        push.faults = injector
        let clock = engine.clock
        engine.commitObservers.append { commit in
            injector.noteChange(users: [commit.zoneID.ownerName] + Array(commit.participants), now: commit.time)
        }
        engine.databaseChangeObservers.append { event in injector.noteChange(users: [event.user], now: clock.now()) }
        return injector
    }

    /// What the fault plan does to a call; `nil` when there is no plan or
    /// it does nothing to this call (then nothing is paid for faults).
    public func faultDecision(for call: @autoclosure () -> FaultCall, now: Milliseconds) -> FaultInjector.Decision? {
        guard let faults, !faults.isEmpty else { return nil }
        let decision = faults.decide(call(), now: now)
        return decision.isNone ? nil : decision
    }
}

extension SimulatedServer {
    /// Adds the rules of a plan to the faults in force; returns their numbers.
    @discardableResult
    public func addFaults(_ plan: FaultPlan) -> [Int] {
        let now = clock.now()
        return withCore { $0.faultInjector().add(plan, now: now) }
    }

    /// Adds one fault rule; returns its number.
    @discardableResult
    public func addFault(_ rule: FaultRule) -> Int {
        addFaults(FaultPlan([rule]))[0]
    }

    /// Removes one rule by number; false when there is none.
    @discardableResult
    public func removeFault(id: Int) -> Bool {
        withCore { $0.faults?.remove(id: id) ?? false }
    }

    /// Removes every fault rule (or those of these kinds); returns how many went.
    @discardableResult
    public func clearFaults(kinds: Set<FaultKind>? = nil) -> Int {
        withCore { $0.faults?.clear(kinds: kinds) ?? 0 }
    }

    /// The rules in force, in the order they are consulted.
    public var faultRules: [FaultInjector.ActiveRule] { withCore { $0.faults?.rules ?? [] } }

    /// How many faults of each kind were injected so far.
    public var injectedFaultCounts: [FaultKind: Int] { withCore { $0.faults?.counts ?? [:] } }

    /// The faults injected since the last call, oldest first.
    public func drainInjectedFaults() -> [InjectedFault] { withCore { $0.faults?.drainInjected() ?? [] } }

    /// The latest push faults that hit a device's notifications, oldest first.
    public func pushFaultMarks(for deviceID: String) -> [PushFaultMark] {
        withCore { $0.faults?.pushFaultMarks(for: deviceID) ?? [] }
    }

    /// What the fault plan does to a call now; `nil`: nothing.
    public func faultDecision(for call: FaultCall) -> FaultInjector.Decision? {
        let now = clock.now()
        return withCore { $0.faultDecision(for: call, now: now) }
    }

    /// Which items of a batch an item-failure fault fails.
    func failingItems(count: Int) -> [Bool] {
        withCore { $0.faultInjector().failingItems(count: count) }
    }

    /// Lets an injected latency pass: on a virtual clock it moves the clock,
    /// on the wall clock it sleeps.
    public func wait(_ milliseconds: Milliseconds) async {
        guard milliseconds > 0 else { return }
        if let virtual = clock as? VirtualClock {
            virtual.advance(by: milliseconds)
        } else {
            try? await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
        }
    }
}

extension CloudError {
    /// The answer to a request that was applied but whose answer was lost
    /// (an ambiguous commit): the client cannot tell whether it was applied.
    public static func answerLost(_ operation: String) -> CloudError {
        CloudError(
            .networkFailure,
            "The connection was lost before the answer to \(operation) arrived (injected fault): the request may or may not have been applied.")
    }

    /// One item of a `records/modify` batch that an item-failure fault failed.
    public static func injectedItemFailure(_ code: Code, recordName: String, zoneID: RecordZoneID?, retryAfter: Double?) -> CloudError {
        CloudError(code, "This item failed (injected fault): \(code.serverErrorCode); retry it.", recordName: recordName, zoneID: zoneID, retryAfter: retryAfter)
    }

    /// An item of an atomic batch that was not applied because another item failed.
    public static func atomicPartnerFailed(recordName: String, zoneID: RecordZoneID?) -> CloudError {
        CloudError(.batchRequestFailed, "Another item of this atomic batch failed, so none was applied.", recordName: recordName, zoneID: zoneID)
    }
}
