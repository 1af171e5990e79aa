import SyncCore
import SyncClient
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

/// Faults in scenarios: the `fault:` and `clearFaults:` steps, the
/// transcript lines of injected faults and retries, and `expect: {retries: …}`.
extension ScenarioRunner {
    func applyFaults(_ kind: StepKind) {
        switch kind {
        case .fault(let plan):
            simulation.addFaults(plan)
            for rule in plan.rules { record(.note(device: nil, "fault on: \(rule)")) }
        case .clearFaults(let kinds):
            let removed = simulation.clearFaults(kinds: kinds.isEmpty ? nil : Set(kinds))
            record(.note(device: nil, "faults cleared: \(Self.count(removed, "rule"))"))
        default:
            break
        }
    }

    func faultSummary(of kind: StepKind) -> String {
        switch kind {
        case .fault(let plan):
            return "faults on: " + plan.rules.map { "\($0.effect.kind.rawValue) (\($0.effect.summary))" }.joined(separator: ", ")
        case .clearFaults(let kinds):
            return kinds.isEmpty ? "every fault stops" : "faults stop: " + kinds.map(\.rawValue).joined(separator: ", ")
        default:
            return ""
        }
    }

    /// A transcript line for each injected fault.
    func observeFault(_ event: WorldEvent) {
        switch event.kind {
        case .fault(let fault):
            record(.note(device: event.device, "injected fault: \(fault.operation) \(fault.detail)"))
        case .push(let push):
            if case .faultInjected(let deviceID, let id, _, let detail) = push.kind {
                let name = simulation.devices.first { $0.deviceID == deviceID }?.name
                record(.note(device: name, "injected fault: push \(id.prefix(8)) \(detail)"))
            }
        default:
            break
        }
    }

    /// A fault that hit a change fetch which was answered (read lag, latency)
    /// gets its line just before that fetch's line, not after it: the fault
    /// is only reported when the device's engine next says something, by
    /// which time the connection has already seen the answer. The fault
    /// belongs to the first fetch of its device and operation not yet shown.
    /// Returns false for other events (they are recorded as usual).
    func recordFaultBeforeItsFetch(_ event: WorldEvent) -> Bool {
        guard case .fault(let fault) = event.kind, let device = event.device else { return false }
        let observed = tap.drain()
        guard let index = observed.firstIndex(where: { $0.device == device && $0.operation == fault.operation }) else {
            tap.putBack(observed)
            return false
        }
        let devices = { [simulation] (name: String) in simulation.device(named: name) }
        fetches.take(Array(observed[..<index]), devices: devices)
        observeFault(event)
        fetches.take([observed[index]], devices: devices)
        tap.putBack(Array(observed[(index + 1)...]))
        return true
    }

    func observeRetry(_ event: SyncEvent, on device: String) {
        switch event {
        case .retryScheduled(let retry):
            record(.note(device: device, "\(retry.operation): \(retry.summary)"))
        case .ambiguousCommitResolved(_, let recordID):
            record(.note(device: device, "resent \(recordID.recordName) after a lost answer: the server already had it, so it counts as sent"))
        default:
            break
        }
    }

    /// The retries a device's engine scheduled so far, oldest first.
    func retries(of device: String) -> [RetryReport] {
        simulation.events.compactMap { event in
            guard event.device == device, case .sync(.retryScheduled(let retry)) = event.kind else { return nil }
            return retry
        }
    }

    func evaluate(_ check: RetriesExpectation) throws -> String? {
        _ = try device(check.device)
        var reports = retries(of: check.device)
        if let code = check.code {
            reports = reports.filter { $0.code.rawValue == code || $0.code.serverErrorCode == code }
        }
        let what = "\(check.device)'s retries" + (check.code.map { " after \($0)" } ?? "")
        var problems: [String] = []
        if let count = check.count, reports.count != count { problems.append("expected \(count), got \(reports.count)") }
        if let atLeast = check.atLeast, reports.count < atLeast { problems.append("expected at least \(atLeast), got \(reports.count)") }
        if let atMost = check.atMost, reports.count > atMost { problems.append("expected at most \(atMost), got \(reports.count)") }
        let waited = reports.map(\.delay).reduce(0, +)
        if let expected = check.waited, waited != expected {
            problems.append("expected waits of \(TranscriptFormatter.seconds(expected)) in all, got \(TranscriptFormatter.seconds(waited))")
        }
        if let honored = check.honoredRetryAfter {
            let mismatched = reports.filter { $0.fromRetryAfter != honored }
            if !mismatched.isEmpty {
                problems.append(honored
                    ? "\(Self.count(mismatched.count, "retry", plural: "retries")) did not wait the server's retryAfter"
                    : "\(Self.count(mismatched.count, "retry", plural: "retries")) waited the server's retryAfter")
            }
        }
        guard !problems.isEmpty else { return nil }
        let seen = reports.isEmpty ? "none" : reports.map(\.summary).joined(separator: "; ")
        return "\(what): \(problems.joined(separator: "; ")) (retries: \(seen))"
    }
}

extension ObservedFetch {
    /// The CloudKit Web Services operation, as fault rules name it.
    var operation: String {
        switch self {
        case .database: "changes/database"
        case .zones: "changes/zone"
        }
    }
}
