import SyncCore
import SyncClient

/// The update step (a reducer): an effect's outcome in, the state and its
/// message line out. Pure: no terminal, no world, no time.
public enum InspectorUpdate {
    /// Turns any command's outcome into state and a message.
    public static func apply(_ outcome: InspectorOutcome, to state: inout InspectorState) {
        switch outcome {
        case .device(let outcome):
            apply(outcome, to: &state)
        case .lesson(let outcome):
            apply(outcome, to: &state)
        case .clock(let outcome):
            apply(outcome, to: &state)
        case .faults(.added), .faults(.cleared):
            // The key said what goes on (or off); the next read lists the rules in force.
            state.needsRedraw = true
        case .faults(.notInjectable):
            InspectorKeys.say(
                "Faults from the inspector need a simulated world; on a real server use syncscope client faults.", kind: .error,
                state: &state)
        case .writer(let running, let interval):
            InspectorKeys.say(running ? "Writer started: a change every \(Format.seconds(interval))." : "Writer stopped.", state: &state)
        case .copied(let what, let result):
            let message = Clipboard.message(copied: what, outcome: result)
            InspectorKeys.say(message.text, kind: message.kind, state: &state)
        case .nothing:
            break
        }
    }

    /// A clock command: the clock's state and a sentence.
    public static func apply(_ outcome: ClockOutcome, to state: inout InspectorState) {
        switch outcome {
        case .live:
            InspectorKeys.say("The clock is live (a device on a real server): pause, speed and step do not apply.", state: &state)
        case .paused(let paused):
            state.clock.isPaused = paused
            InspectorKeys.say(
                paused ? "Clock paused: nothing happens until you press Space (or . to step)." : "Clock running.", state: &state)
        case .speed(let speed):
            state.clock.speed = speed
            InspectorKeys.say(
                "Clock speed \(Format.speed(speed)): one real second is \(Format.seconds(Milliseconds(speed * 1000))) of simulated time.",
                state: &state)
        case .stepped(let time, let lastEvent):
            state.clock.now = time
            InspectorKeys.say("Stepped to \(Format.clock(time))" + (lastEvent.map { ": \($0)" } ?? ": nothing was due."), state: &state)
        }
    }

    /// A lesson command: the step's message, then lesson mode after it
    /// (follow the step's device, highlight what it changed, offer the
    /// summary at the end).
    public static func apply(_ outcome: LessonOutcome, to state: inout InspectorState) {
        switch outcome.kind {
        case .alreadyOver:
            InspectorKeys.say("The lesson is over: b starts it again, t jumps to a step, q quits.", state: &state)
            return
        case .rebuildFailed(let reason):
            InspectorKeys.say("The lesson's world could not be built again: \(reason)", kind: .error, state: &state)
            return
        case .restarted:
            state.lessonMode.showsSummary = false
        case .ranStep, .wentTo:
            break
        }
        let devices = state.snapshot.devices.map(\.name)
        if let index = state.lessonMode.stepRan(device: outcome.stepDevice, touched: outcome.touched, devices: devices, now: outcome.now) {
            InspectorKeys.focusDevice(index, state: &state)
        }
        if outcome.isFinished && outcome.stepCount > 0 { state.lessonMode.showsSummary = true }
        state.needsRedraw = true
        switch outcome.kind {
        case .ranStep(let index, let summary, let result):
            if let failure = result.failure {
                InspectorKeys.say("Step \(index + 1): \(failure.stepName) did not hold: \(failure.message)", kind: .error, state: &state)
            } else if let error = result.error {
                InspectorKeys.say(
                    "Step \(index + 1) (\(summary)) ended with \(error.code.rawValue) (\(error.serverErrorCode)), as the lesson expects: \(error.reason)",
                    kind: .warning, state: &state)
            } else if result.isNarrative {
                InspectorKeys.say("Step \(index + 1) of \(outcome.stepCount): read the lesson pane, then Enter.", state: &state)
            } else {
                InspectorKeys.say("Step \(index + 1) of \(outcome.stepCount) done: \(summary)", kind: .success, state: &state)
            }
        case .restarted:
            InspectorKeys.say("Back to the start of the lesson: a fresh world. Enter runs the first step.", state: &state)
        case .wentTo(let stepsRun):
            InspectorKeys.say(LessonMode.positionMessage(stepsRun: stepsRun, stepCount: outcome.stepCount), state: &state)
        case .alreadyOver, .rebuildFailed:
            break
        }
    }

    /// Says a device action's outcome on the message line. A passing failure
    /// (the server down or busy, or a sync error during the action) stays as a
    /// sync problem of the device, which goes when the server answers again;
    /// any other outcome replaces an earlier sync error on the line.
    public static func apply(_ outcome: CommandOutcome, to state: inout InspectorState) {
        switch outcome.result {
        case .refused(let message):
            InspectorKeys.say(message.text, kind: message.kind, state: &state)
        case .done(let success, let notable, let recovered):
            if let notable, notable.kind == .error {
                // A sync error during the action (and no answer since): it goes when the server answers.
                state.syncFailed(notable, device: outcome.device)
            } else {
                if let notable {
                    state.message = notable
                    state.needsRedraw = true
                } else {
                    InspectorKeys.say(
                        success + (recovered ? " (A first attempt failed; a retry worked.)" : ""), kind: .success, state: &state)
                }
                // The line now shows this action's outcome: an earlier sync error is no longer on it.
                state.syncProblem = nil
            }
        case .failed(let error):
            let text = "\(outcome.device): \(outcome.action) failed: \(error.code.rawValue) (\(error.serverErrorCode)): \(error.reason)"
            if error.isTransient {
                // A passing failure (the server down, busy): it goes when the server answers again.
                state.syncFailed(InspectorMessage(text, kind: .error), device: outcome.device)
            } else {
                InspectorKeys.say(text, kind: .error, state: &state)
                state.syncProblem = nil
            }
        }
    }

    /// Says that an effect started and keys still work while it runs
    /// (`queued`: how many wait behind it).
    public static func started(_ outcomeAction: String, device: String?, queued: Int, state: inout InspectorState) {
        let who = device.map { "\($0): " } ?? ""
        let waiting = queued > 0 ? " \(queued) more waiting." : ""
        InspectorKeys.say("\(who)\(outcomeAction)… working (the other keys still work).\(waiting)", state: &state)
    }

    /// Says that a command waits for the one running on the same world.
    public static func queued(_ action: String, behind running: String, state: inout InspectorState) {
        InspectorKeys.say("Busy with \(running): \(action) runs after it (keys still work; q quits).", kind: .info, state: &state)
    }
}
