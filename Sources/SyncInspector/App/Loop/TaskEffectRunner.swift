import Synchronization

/// Runs each effect as a task on the world's own thread (an executor of its
/// own), while the loop's thread blocks on the terminal and the mailbox's
/// pipe: a key never waits for the network. The world is only touched from
/// that one thread, and by one effect at a time that mutates it (the update
/// step's ``EffectQueue``). Each effect's messages go to the mailbox, which
/// wakes the loop.
final class TaskEffectRunner: EffectRunner {
    private let world: InspectorWorld
    private let mailbox: InspectorMailbox
    private let executor: any TaskExecutor
    /// The latest effect's task (the loop's thread only): effects on the
    /// world run one at a time, so it is the one under way, if any.
    private var current: Task<Void, Never>?

    init(world: InspectorWorld, mailbox: InspectorMailbox, executor: any TaskExecutor) {
        self.world = world
        self.mailbox = mailbox
        self.executor = executor
    }

    func start(_ effect: InspectorEffect, context: EffectContext) async {
        mailbox.post(.effectStarted(effect))
        let confined = Confined(value: world)
        let mailbox = self.mailbox
        let task = Task(executorPreference: executor) {
            mailbox.post(await confined.value.perform(effect, context: context))
        }
        // A world read never suspends: it runs between two suspensions of the effect under way, which stays the one to wait for.
        if effect.runsInTurn { current = task }
    }

    /// Waits for the effects under way to stop touching the world, or for
    /// ``quitGrace``, whichever comes first: an effect that does not end (a
    /// server that does not answer) is left behind, so `q` always quits. The
    /// effect is not cancelled: on Linux, cancelling a request under way can
    /// crash Foundation's URLSession.
    func stop() async {
        guard let running = current else { return }
        current = nil
        let resumed = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            Task {
                await running.value
                resumeOnce()
            }
            Task {
                try? await Task.sleep(for: Self.quitGrace)
                resumeOnce()
            }
        }
    }

    /// The longest quitting waits for an effect under way.
    static let quitGrace: Duration = .seconds(2)
}
