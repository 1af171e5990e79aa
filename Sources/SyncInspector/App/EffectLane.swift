import Synchronization
import SyncCore
import SyncWorlds

/// Effects: what a key or the clock asks of the world runs here, one at a
/// time in order (the world is not thread-safe), and its result comes back to
/// the loop as an ``InspectorEffectResult`` that ``apply(_:)`` turns into state.
///
/// On a live world the loop starts each effect as a task on the terminal's
/// executor and goes on reading keys: a key never waits for the network.
/// Elsewhere (an in-process world, tests) ``runEffectsToCompletion()`` awaits
/// them where they are asked for.
extension InspectorController {
    /// How often the loop looks for a finished effect while one runs.
    static let effectPoll: Milliseconds = 15

    /// Whether effects run as tasks while the loop reads keys.
    var effectsRunConcurrently: Bool {
        effectExecutor != nil && (runsEffectsConcurrently ?? !world.isVirtualTime)
    }

    /// Whether nothing runs and nothing waits.
    public var isIdle: Bool { inFlight == nil && lane.isEmpty && inbox.isEmpty }

    /// The command running or waiting first, in words ("fetch"), if any.
    var busyWith: String? {
        for effect in [inFlight].compactMap({ $0 }) + lane {
            if case .command(let command) = effect { return Self.describe(command) }
        }
        return nil
    }

    /// Queues an effect. A read or a live advance already waiting is not
    /// queued twice: the read reads the selection of when it starts.
    func enqueue(_ effect: InspectorEffect) {
        switch effect {
        case .readServer, .advanceLive:
            if lane.contains(effect) { return }
        case .command:
            break
        }
        lane.append(effect)
    }

    /// Runs one effect on the world. Touches the state only through the
    /// result (a lesson step, a fault or a clock step reads the server after
    /// it, as ``refresh()`` does, before its result comes back).
    func perform(_ effect: InspectorEffect) async -> InspectorEffectResult? {
        switch effect {
        case .command(let command):
            return .command(command, await run(command) ?? .nothing)
        case .readServer:
            return await performRead()
        case .advanceLive:
            await world.advance(by: 0)
            return .advanced
        }
    }

    /// The update step for an effect's result.
    func apply(_ result: InspectorEffectResult) {
        switch result {
        case .command(_, let outcome):
            apply(outcome)
            // What the command changed on the server, read after it.
            enqueue(.readServer)
        case .serverRead(_, let target, _, _):
            if applyRead(result) {
                rebuild()
                // The rebuild may have moved the selection: read what the new one shows.
                if readTarget() != target { enqueue(.readServer) }
            } else {
                // Another device is focused now: read for it.
                enqueue(.readServer)
            }
        case .advanced:
            break
        }
    }

    /// Runs every queued effect, in order, and applies its result (the
    /// in-process world, and tests that assert on the outcome of a key).
    public func runEffectsToCompletion() async {
        while !lane.isEmpty {
            let effect = lane.removeFirst()
            if let result = await perform(effect) {
                apply(result)
            } else if effect == .readServer {
                rebuild()
            }
        }
    }

    // MARK: Off the key path

    /// Applies the results that came back since the last turn of the loop.
    /// - Returns: whether there were any.
    func applyFinishedEffects() -> Bool {
        guard !inbox.isEmpty else { return false }
        let results = inbox
        inbox = []
        for result in results { apply(result) }
        return true
    }

    /// Starts the next queued effect as a task on ``effectExecutor``, unless one is running.
    func startNextEffect() {
        guard inFlight == nil, !lane.isEmpty, let executor = effectExecutor else { return }
        let effect = lane.removeFirst()
        inFlight = effect
        log?.write("effect \(effect) started")
        if case .command(let command) = effect, let device = Self.device(of: command) {
            let queued = lane.filter { if case .command = $0 { true } else { false } }.count
            InspectorUpdate.started(Self.describe(command), device: device, queued: queued, state: &state)
        }
        // The controller and the world are used only on the executor's one
        // thread: the loop between two keys, the effect between two suspensions.
        let confined = Confined(value: (self, effect))
        effectTask = Task(executorPreference: executor) {
            let (controller, effect) = confined.value
            let result = await controller.perform(effect)
            controller.finish(effect, with: result)
        }
    }

    /// On quit: waits until the running effect has stopped touching the
    /// world (the caller closes the world next); an effect that does not end
    /// within ``quitGrace`` (a server that does not answer) is left behind,
    /// so `q` always quits. The effect is not cancelled: on Linux, cancelling
    /// a request under way can crash Foundation's URLSession.
    func stopEffects() async {
        lane = []
        guard let task = effectTask else { return }
        // Whichever comes first: the effect's end or the grace (unstructured,
        // so an effect that never ends is not waited for).
        let resumed = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            Task { await task.value; resumeOnce() }
            Task { try? await Task.sleep(for: Self.quitGrace); resumeOnce() }
        }
    }

    /// The longest quitting waits for a cancelled effect.
    static let quitGrace: Duration = .seconds(2)

    private func finish(_ effect: InspectorEffect, with result: InspectorEffectResult?) {
        if let result {
            inbox.append(result)
        } else if effect == .readServer {
            rebuild()
        }
        inFlight = nil
        effectTask = nil
    }

    /// The device a device action acts on.
    static func device(of command: InspectorCommand) -> String? {
        switch command {
        case .createZone(_, let device), .deleteZone(_, let device), .purgeZone(_, let device), .encryptedDataReset(let device),
             .saveRecord(_, let device), .deleteRecord(_, let device), .fetch(let device), .fetchOneBatch(_, let device),
             .sync(let device), .setAutoFetch(_, let device), .setOnline(_, let device), .compact(let device), .burst(_, let device):
            device
        default:
            nil
        }
    }
}

/// A value used only on one serial executor, carried into a task that runs on
/// that same executor (the compiler cannot see that the two never overlap).
struct Confined<Value>: @unchecked Sendable {
    let value: Value
}
