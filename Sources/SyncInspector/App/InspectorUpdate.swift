import SyncCore

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
    /// A command ran; `outcome` is what a device action did (`nil` for
    /// commands that said their own outcome, such as a lesson step).
    case command(InspectorCommand, CommandOutcome?)
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

/// The update step (a reducer): an effect's outcome in, the state and its
/// message line out. Pure: no terminal, no world, no time.
public enum InspectorUpdate {
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
