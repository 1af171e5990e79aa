import Foundation
import Testing
import SyncInspector

/// curses must be used from the one thread that started it: everything in
/// ``TerminalActor/run(_:)`` runs on the terminal's thread, its first line
/// included (`syncscope inspect --server` opens the terminal before it
/// first suspends) and after every suspension.
@Suite struct TerminalActorTests {
    @Test func theBodyRunsOnTheTerminalThreadFromItsFirstLine() async throws {
        let terminal = TerminalActor()
        let onThread = try await terminal.run { () async throws -> [Bool] in
            let first = terminal.executor.isCurrentThread
            // A real suspension, resumed from another thread.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { continuation.resume() }
            }
            return [first, terminal.executor.isCurrentThread]
        }
        #expect(onThread == [true, true], "before and after the suspension")
    }

    @Test func otherThreadsAreNotTheTerminals() async throws {
        let terminal = TerminalActor()
        #expect(!terminal.executor.isCurrentThread)
        let other = TerminalExecutor(threadName: "syncscope-world")
        #expect(try await terminal.run { !other.isCurrentThread })
    }
}
