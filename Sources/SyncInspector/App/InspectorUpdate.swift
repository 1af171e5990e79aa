import SyncCore
import SyncClient

/// Work the inspector asks of its world (Bubble Tea's Cmd): it runs off the
/// key path, and its result comes back to the loop as an ``InspectorEffectResult``
/// (the Msg). Effects on one world run one at a time, in order (the world is
/// not thread-safe, and two mutations must not interleave).
public enum InspectorEffect: Hashable, Sendable {
    /// A command that acts on the world (a device action, a lesson step, a clock step).
    case command(InspectorCommand)
    /// Read the server for the focused device and the current selection.
    case readServer
    /// On a live world: handle what arrived (pushes) and what is due.
    case advanceLive
}

/// What an effect did, posted back into the loop.
public enum InspectorEffectResult: Sendable {
    /// A command ran, and this is what it did.
    case command(InspectorCommand, InspectorOutcome)
    /// The server was read for `device`, for the selection `target`.
    case serverRead(device: String, target: ReadTarget, source: String, result: Result<ServerReading, CloudError>)
    /// A live world handled what had arrived.
    case advanced
}

/// The zone and token a server read was for (the selection when it started).
public struct ReadTarget: Hashable, Sendable {
    public var zone: ZoneKey?
    public var receipt: TokenReceipt?

    public init(zone: ZoneKey?, receipt: TokenReceipt?) {
        self.zone = zone
        self.receipt = receipt
    }
}

/// What a device action did, as the command runner saw it: no terminal, no
/// world in it, so ``InspectorUpdate`` can be tested on hand-built outcomes.
public struct CommandOutcome: Hashable, Sendable {
    public enum Result: Hashable, Sendable {
        /// It worked. `success` says what it did; `notable` is something worth
        /// saying that happened meanwhile (a sync error, a conflict merged);
        /// `recovered`: an attempt failed and a retry worked.
        case done(success: String, notable: InspectorMessage?, recovered: Bool)
        /// The world refused or the server failed it.
        case failed(CloudError)
        /// It was not run: the message says why (the device is offline, there is no writer...).
        case refused(InspectorMessage)
    }

    /// The device it acted on.
    public var device: String
    /// The action, in words ("fetch", "save note-1").
    public var action: String
    public var result: Result

    public init(device: String, action: String, result: Result) {
        self.device = device
        self.action = action
        self.result = result
    }
}

/// What a command did, whatever it acted on: the command runner returns one
/// for every command, and ``InspectorUpdate`` turns it into state and a message. Values only: tests build them by hand.
public enum InspectorOutcome: Hashable, Sendable {
    /// A device action (``CommandOutcome``).
    case device(CommandOutcome)
    /// A lesson step ran, the lesson was rebuilt, or it could not be (``LessonOutcome``).
    case lesson(LessonOutcome)
    /// The clock was paused, sped up or stepped (``ClockOutcome``).
    case clock(ClockOutcome)
    /// The faults overlay's rule went in (or the rules went), or the world cannot take faults.
    case faults(FaultsOutcome)
    /// The demo writer was started or stopped: `interval` between its changes.
    case writer(running: Bool, interval: Milliseconds)
    /// `y`: the text of `what` went to the clipboard, or could not.
    case copied(what: String, Clipboard.Outcome)
    /// Nothing to say (a repaint; a lesson key without a lesson; a writer key without a writer).
    case nothing
}

/// What a lesson command did, with what the lesson looks like after it.
public struct LessonOutcome: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Step `step` (0-based) ran; `summary` is what the outline called it.
        case ranStep(step: Int, summary: String, result: LessonStepResult)
        /// Enter after the last step: nothing ran.
        case alreadyOver
        /// The world was built again; nothing ran yet.
        case restarted
        /// The world was built again and its first `stepsRun` steps ran.
        case wentTo(stepsRun: Int)
        /// The world could not be built again (`reason`).
        case rebuildFailed(reason: String)
    }

    public var kind: Kind
    public var stepCount: Int
    /// The device the latest step acted on, which the screen follows.
    public var stepDevice: String?
    /// The panes the latest step changed, highlighted for a moment.
    public var touched: Set<LessonPane>
    public var isFinished: Bool
    /// Real time when the step ended (the highlight counts from it).
    public var now: Milliseconds

    public init(
        _ kind: Kind, stepCount: Int, stepDevice: String? = nil, touched: Set<LessonPane> = [], isFinished: Bool = false, now: Milliseconds = 0
    ) {
        self.kind = kind
        self.stepCount = stepCount
        self.stepDevice = stepDevice
        self.touched = touched
        self.isFinished = isFinished
        self.now = now
    }
}

/// What a clock command did.
public enum ClockOutcome: Hashable, Sendable {
    case paused(Bool)
    case speed(Double)
    /// The clock moved to `to`; `lastEvent` is the last thing that happened on the way.
    case stepped(to: Milliseconds, lastEvent: String?)
    /// The world's clock is the wall clock (a device on a real server): nothing changed.
    case live
}

/// What a faults command did.
public enum FaultsOutcome: Hashable, Sendable {
    /// The rule is in force (the key already said which).
    case added(FaultRule)
    case cleared
    /// The world takes no faults from the inspector (a device on a real server).
    case notInjectable
}

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
