import Foundation

/// Runs every job on one thread of its own: the terminal's thread (or, for
/// a live world, the world's: see `TaskEffectRunner`).
///
/// curses must be used from the thread that started it, and on Linux the
/// main actor is not pinned to a thread: once the inspector really suspends
/// (a network call), it could resume on another. Code isolated to
/// ``TerminalActor`` always resumes here. A live world's effects (commands,
/// server reads) run on a second one, named `syncscope-world`, in tasks that
/// prefer it (`Task(executorPreference:)`), so the world, which is not
/// thread-safe, is only ever touched from that thread while the terminal's
/// blocks waiting for keys.
///
/// The thread blocks while there is no job.
public final class TerminalExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// Set once, in `init`, before the thread starts.
    private var thread: Thread?

    /// - Parameter threadName: the thread's name (a live world's effects run on one named `syncscope-world`).
    public init(threadName: String = "syncscope-terminal") {
        let thread = Thread { [self] in loop() }
        thread.name = threadName
        self.thread = thread
        thread.start()
    }

    /// Whether the code asking runs on this executor's thread.
    public var isCurrentThread: Bool { Thread.current === thread }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }
}

/// The terminal's actor: everything curses touches for `syncscope inspect`,
/// `lesson` and `device` runs on its thread (one ``TerminalExecutor``), and
/// so do the effects of an in-process world.
public actor TerminalActor {
    /// The thread's executor.
    public nonisolated let executor: TerminalExecutor

    public init() {
        executor = TerminalExecutor()
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Runs `body` on the terminal's thread, from its first line.
    public func run<T: Sendable>(_ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        // The compiler drops the hop onto this actor at the start of a method
        // whose first isolated act is to call a nonisolated(nonsending)
        // closure: `body` would then begin on the caller's thread and reach
        // the terminal's only at its first suspension, and curses, started
        // before it, would be used from two threads. Counting the run is
        // isolated work, so the hop stays before it; the check says so at
        // once should it ever not.
        runs += 1
        precondition(executor.isCurrentThread, "TerminalActor.run began off the terminal's thread")
        return try await body()
    }

    /// The runs begun (isolated state: see ``run(_:)``).
    private var runs = 0
}
