import SyncCore
import SyncWorlds

/// The faults overlay (`!`): switch on throttling, an outage, push loss or
/// read lag for the focused device or for everyone, or clear them all.
/// A reducer on its own: keys in, state and commands out.
enum InspectorFaults {
    /// The choices, in the order the overlay lists them.
    struct Choice {
        var key: Character
        var label: String
        var effect: FaultEffect
        var operations: [String]
        var frequency: FaultFrequency
    }

    static let choices: [Choice] = [
        Choice(key: "t", label: "throttle sends: THROTTLED, retry in 3 s (20 s)", effect: .throttled(retryAfter: 3), operations: ["records/modify", "zones/modify"], frequency: FaultFrequency(duration: 20_000)),
        Choice(key: "o", label: "outage: TRY_AGAIN_LATER, retry in 10 s (30 s)", effect: .serviceUnavailable(retryAfter: 10), operations: [], frequency: FaultFrequency(duration: 30_000)),
        Choice(key: "p", label: "push loss: drop every notification", effect: .pushDrop, operations: [], frequency: FaultFrequency()),
        Choice(key: "r", label: "read lag: fetches miss changes younger than 3 s", effect: .readLag(3_000), operations: [], frequency: FaultFrequency()),
    ]

    static func handle(_ key: KeyEvent, state: inout InspectorState) -> [InspectorCommand] {
        switch key {
        case .escape, .character("q"), .character("!"), .enter:
            InspectorKeys.close(state: &state)
        case .character("e"):
            state.faultsForEveryone.toggle()
            state.needsRedraw = true
        case .character("c"):
            InspectorKeys.close(state: &state)
            InspectorKeys.say("Every fault stops.", state: &state)
            return [.clearFaults]
        case .character(let character):
            guard let choice = choices.first(where: { $0.key == character }) else { return [] }
            let device = state.faultsForEveryone ? nil : state.device?.name
            let rule = FaultRule(choice.effect, match: FaultMatch(operations: choice.operations, device: device), frequency: choice.frequency)
            InspectorKeys.close(state: &state)
            InspectorKeys.say("Fault on for \(device ?? "every device"): \(choice.label).", kind: .info, state: &state)
            return [.addFault(rule)]
        default:
            break
        }
        return []
    }

    /// The overlay's lines: the choices, the target, the rules in force.
    static func lines(_ state: InspectorState) -> [String] {
        var lines = choices.map { "\($0.key)  \($0.label)" }
        lines.append("e  for: " + (state.faultsForEveryone ? "every device" : (state.device?.name ?? "the focused device")) + " (e switches)")
        lines.append("c  clear every fault")
        lines.append("")
        if state.snapshot.faultRules.isEmpty {
            lines.append("No faults in force.")
        } else {
            lines.append("In force:")
            lines += state.snapshot.faultRules.map { "  " + $0 }
        }
        return lines
    }
}

extension InspectorFaults {
    /// The word the push feed's fetch column shows for a push fault
    /// ("dropped", "duplicate", "delayed", "reordered"); the detail line has it whole.
    static func pushMark(_ fault: String) -> String {
        String(fault.split(separator: " ").first ?? "")
    }

    /// Marks the push feed's entries that injected push faults hit, and adds
    /// the notifications that were dropped (they never arrive), newest first
    /// among the delivered ones by the time they were lost. Of a duplicated
    /// notification, the copy that came (or comes) later is the duplicate.
    static func markPushFaults(_ entries: [NotificationEntry], marks: [PushFaultMark]) -> [NotificationEntry] {
        guard !marks.isEmpty else { return entries }
        var entries = entries
        var dropped: [NotificationEntry] = []
        func arrival(_ entry: NotificationEntry) -> Milliseconds {
            switch entry.status {
            case .delivered(let at, _), .inTransit(let at), .dropped(let at): at
            case .coalescing, .heldWhileOffline: .max
            }
        }
        var positionsByID: [String: [Int]] = [:]
        for (position, entry) in entries.enumerated() { positionsByID[entry.notification.notificationID, default: []].append(position) }
        for mark in marks {
            let positions = positionsByID[mark.notification.notificationID] ?? []
            switch mark.kind {
            case .pushDrop:
                dropped.append(NotificationEntry(
                    notification: mark.notification, status: .dropped(at: mark.time), fetch: nil, index: nil, fault: mark.detail))
            case .pushDuplicate:
                // The first to arrive is the original (newest first: the last listed of equals).
                guard let original = positions.min(by: { (arrival(entries[$0]), -$0) < (arrival(entries[$1]), -$1) }) else { continue }
                for position in positions where position != original { entries[position].fault = mark.detail }
            default:
                for position in positions where entries[position].fault == nil { entries[position].fault = mark.detail }
            }
        }
        guard !dropped.isEmpty else { return entries }
        var result: [NotificationEntry] = []
        var newestFirst = dropped.reversed()[...]
        for entry in entries {
            if case .delivered(let at, _) = entry.status {
                while let next = newestFirst.first, arrival(next) > at {
                    result.append(next)
                    newestFirst.removeFirst()
                }
            }
            result.append(entry)
        }
        return result + newestFirst
    }
}

extension InspectorFaults {
    /// An injected fault as the event log shows it, the fault first so a
    /// narrow pane still shows it: "iPhone: THROTTLED, retry in 3 s (injected
    /// on records/modify)", "push to Mac dropped (injected fault)". `nil` for
    /// other events.
    static func eventText(_ event: WorldEvent, devices: [DeviceSummary]) -> String? {
        switch event.kind {
        case .fault(let fault):
            return (event.device.map { "\($0): " } ?? "") + "\(fault.detail) (injected on \(fault.operation))"
        case .push(let push):
            guard case .faultInjected(let deviceID, let id, _, let detail) = push.kind else { return nil }
            let name = devices.first { $0.deviceID == deviceID }?.name ?? deviceID
            return "push to \(name) \(detail) (injected fault, \(id.prefix(8)))"
        default:
            return nil
        }
    }

    /// Whether an event is an injected fault (the event log shows it in the warning style).
    static func isFault(_ event: WorldEvent) -> Bool {
        switch event.kind {
        case .fault: true
        case .push(let push): if case .faultInjected = push.kind { true } else { false }
        default: false
        }
    }
}

extension InspectorView {
    func drawFaults(_ state: InspectorState, into buffer: inout CellBuffer) {
        let lines = InspectorFaults.lines(state)
        let width = min(buffer.width - 4, 78)
        let box = buffer.bounds.centered(width: width, height: min(buffer.height - 2, lines.count + 3))
        let inner = Panel(title: "Faults", focused: true, theme: theme).render(into: &buffer, area: box)
        buffer.fill(inner, style: theme.normal)
        let content = inner.inset(left: 1, right: 1)
        for (index, line) in lines.enumerated() where index < content.height {
            buffer.write(line, x: content.x, y: content.y + index, style: theme.normal, clip: content)
        }
        buffer.write("esc close", x: content.x, y: content.maxY - 1, style: theme.helpKey, clip: content)
    }
}
