import Foundation

/// Runs every job on one thread of its own. curses must be used from the
/// thread that started it, and on Linux the main actor is not pinned to a
/// thread: once the device inspector really suspends (a network call), it
/// could resume on another. Isolated to ``TerminalActor``, it always resumes here.
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init() {
        let thread = Thread { [self] in loop() }
        thread.name = "syncscope-terminal"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}

/// The terminal's actor: everything curses touches for `syncscope device` runs on its thread.
actor TerminalActor {
    private let executor = ThreadExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func run<T: Sendable>(_ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        try await body()
    }
}
