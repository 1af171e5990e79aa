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

    /// - Parameter threadName: the thread's name (a live world's effects run on one named `syncscope-world`).
    public init(threadName: String = "syncscope-terminal") {
        let thread = Thread { [self] in loop() }
        thread.name = threadName
        thread.start()
    }

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

    /// Runs `body` on the terminal's thread.
    public func run<T: Sendable>(_ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        try await body()
    }
}
