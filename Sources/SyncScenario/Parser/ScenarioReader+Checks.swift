import SyncCore

extension ScenarioReader {
    /// Checks that need the whole list of steps: captured tokens, zones that
    /// are never created, and checks that come before what they check.
    func checkReferencesAcrossSteps(hasInitialSubscriptions: Bool) {
        checkCapturedTokens()
        checkZonesAreCreated()
        checkOrder(hasInitialSubscriptions: hasInitialSubscriptions)
    }

    private func checkCapturedTokens() {
        var capturedNames: [String] = []
        for capture in captures where !capturedNames.contains(capture.name) { capturedNames.append(capture.name) }
        for use in tokenUses {
            let sameName = captures.filter { $0.name == use.name }
            if let first = sameName.first {
                if !sameName.contains(where: { $0.stepIndex < use.stepIndex }) {
                    error(
                        "token '\(use.name)' is used before it is captured",
                        hint: "it is first captured at line \(first.location.line), by a later step",
                        at: use.location)
                }
            } else {
                let fallback = capturedNames.isEmpty
                    ? "capture it first with 'capture: \(use.name)' on an earlier fetch"
                    : "captured tokens: \(capturedNames.joined(separator: ", "))"
                error(
                    "token '\(use.name)' is never captured",
                    hint: Suggestions.hint(for: use.name, in: capturedNames, otherwise: fallback), at: use.location)
            }
        }
    }

    /// A zone no step creates is most likely a typo; it is only a warning,
    /// since a scenario may use a missing zone on purpose (and then expects
    /// the error right after).
    private func checkZonesAreCreated() {
        var created: [String] = []
        for name in createdZoneNames where !created.contains(name) { created.append(name) }
        var warned: Set<String> = []
        for use in zoneUses {
            let name = use.zone.zoneName
            guard name != RecordZoneID.defaultZoneName, !created.contains(name), !warned.contains(name),
                  !nextCheckIsError(after: use.stepIndex)
            else { continue }
            warned.insert(name)
            warning(
                "zone '\(name)' is never created in this scenario",
                hint: Suggestions.hint(for: name, in: created, otherwise: "add a createZone step before using it"),
                at: use.location)
        }
    }

    /// Whether the first step after `index`, `say` steps aside, checks an error.
    private func nextCheckIsError(after index: Int) -> Bool {
        for step in readSteps where step.index > index {
            switch step.kind {
            case .say?, .ask?: continue
            case .expect(.error)?: return true
            default: return false
            }
        }
        return false
    }

    private func checkOrder(hasInitialSubscriptions: Bool) {
        var fetched = false
        var sent = false
        var subscribed = hasInitialSubscriptions
        var acted = false
        for step in readSteps.sorted(by: { $0.index < $1.index }) {
            switch step.kind {
            case .fetch?:
                fetched = true
                acted = true
            case .sync?:
                fetched = true
                sent = true
                acted = true
            case .send?, .burst?, .modifyRecords?:
                sent = true
                acted = true
            case .subscribe?:
                subscribed = true
                acted = true
            case .expect(.lastFetch)?:
                // A device also fetches when a push arrives, so a subscription counts.
                if !fetched, !subscribed {
                    error(
                        "lastFetch checks a fetch, but no fetch or sync step comes before it",
                        hint: "add a fetch or sync step before this check", at: step.location)
                }
            case .expect(.lastSend)?:
                if !sent {
                    error(
                        "lastSend checks a send, but no send, sync, burst or modifyRecords step comes before it",
                        hint: "add a send or sync step before this check", at: step.location)
                }
            case .expect(.error)?:
                if !acted {
                    error(
                        "this error check has no step before it to check",
                        hint: "put it right after the step that should fail", at: step.location)
                }
            case .say?, .ask?, .expect?:
                break
            default:
                acted = true
            }
        }
    }
}
