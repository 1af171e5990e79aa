import SyncCore
import SyncServer
import SyncSimulation

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

extension InspectorController {
    /// Applies a faults command; returns a problem to show, if any.
    func executeFault(_ command: InspectorCommand) -> String? {
        guard let simulation = world as? Simulation else {
            return "Faults from the inspector need a simulated world; on a real server use syncscope client faults."
        }
        switch command {
        case .addFault(let rule): simulation.addFaults(FaultPlan([rule]))
        case .clearFaults: simulation.clearFaults()
        default: break
        }
        refresh()
        return nil
    }
}
