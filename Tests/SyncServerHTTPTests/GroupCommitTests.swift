import Foundation
import GRDB
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import SyncCore
import Synchronization
import Testing

/// The group committer on its own (``GroupCommitter``): rows never wait
/// for a checkpoint being encoded; calls that wait suspended and calls that
/// wait blocked all get their rows committed, in the order they were queued,
/// whoever leads each transaction; and the WAL is copied into the database
/// file off the commit path (``WALCheckpointer``).
@Suite struct GroupCommitTests {
    let manager = FileManager.default

    func folder() -> URL { manager.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)") }

    /// A journal row's call: any call the journal keeps as it came.
    static func row(_ n: Int) -> PreparedCall {
        PreparedCall(call: APICall(method: "POST", path: "/internal/test", body: Data(#"{"n":\#(n)}"#.utf8), isServerCall: true), route: .whole)
    }

    func rowNumbers(_ directory: URL) throws -> [Int64] {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        return try queue.read { db in try Int64.fetchAll(db, sql: "SELECT seq FROM journal ORDER BY seq") }
    }

    func checkpointThrough(_ directory: URL) throws -> Int64? {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        return try queue.read { db in try Int64.fetchOne(db, sql: "SELECT throughSeq FROM checkpoint WHERE id = 1") }
    }

    /// A checkpoint is encoded on its own thread: the row queued after it is
    /// committed while the encoding still runs, and the checkpoint, once
    /// written, holds (and deletes) only the rows queued before it.
    @Test func aRowIsNotHeldBackByACheckpointBeingEncoded() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let journal = try Journal(directory: directory)
        let committer = GroupCommitter(journal: journal, lastSeq: 0)
        let gate = DispatchSemaphore(value: 0)
        let encoding = DispatchSemaphore(value: 0)

        committer.enqueueRow(time: 1, call: Self.row(1))
        let (checkpoint, through) = committer.enqueueCheckpoint(time: 2) {
            encoding.signal()
            // Bounded, so that a committer that waited for this would fail the test, not hang it.
            _ = gate.wait(timeout: .now() + 60)
            return Data("state through row 1".utf8)
        }
        #expect(through == 1)
        let second = committer.enqueueRow(time: 3, call: Self.row(2))
        #expect(encoding.wait(timeout: .now() + 60) == .success)

        #expect(committer.waitUntilDurableBlocking(second) == nil)
        #expect(try rowNumbers(directory) == [1, 2])
        #expect(try checkpointThrough(directory) == nil, "the checkpoint cannot be written before its encoding ends")

        gate.signal()
        #expect(committer.waitUntilDurableBlocking(checkpoint) == nil)
        #expect(try checkpointThrough(directory) == 1)
        #expect(try rowNumbers(directory) == [2])
        #expect(committer.finish() == nil)
        try journal.close()
    }

    #if os(Linux)
    /// The thread that encodes a checkpoint runs at the lowest priority (nice
    /// 19), but the one that commits it keeps the calls' priority: while a
    /// checkpoint commits, the calls wait for it, so it must not wait for the
    /// cores behind them. (Before, the encoding thread committed it too, and a
    /// server kept busy held every call for up to a second and more.)
    @Test func aCheckpointIsEncodedAtTheLowestPriorityAndCommittedAtTheCallers() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let journal = try Journal(directory: directory)
        /// The nice value of the thread that committed a change to the checkpoint table.
        final class CommitWatch: TransactionObserver, @unchecked Sendable {
            let lock = NSLock()
            var checkpointChanged = false
            var niceAtCommit: [Int32] = []
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "checkpoint" }
            func databaseDidChange(with event: DatabaseEvent) { lock.withLock { checkpointChanged = true } }
            func databaseDidCommit(_ db: Database) {
                lock.withLock {
                    if checkpointChanged { niceAtCommit.append(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)) }
                    checkpointChanged = false
                }
            }
            func databaseDidRollback(_ db: Database) { lock.withLock { checkpointChanged = false } }
        }
        let watch = CommitWatch()
        journal.queue.add(transactionObserver: watch, extent: .databaseLifetime)
        let callers = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let committer = GroupCommitter(journal: journal, lastSeq: 0)
        let encoderNice = Mutex<Int32?>(nil)

        #expect(committer.waitUntilDurableBlocking(committer.enqueueRow(time: 1, call: Self.row(1))) == nil)
        let (checkpoint, _) = committer.enqueueCheckpoint(time: 2) {
            encoderNice.withLock { $0 = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            return Data("state through row 1".utf8)
        }
        #expect(committer.waitUntilDurableBlocking(checkpoint) == nil)
        #expect(try checkpointThrough(directory) == 1)
        #expect(encoderNice.withLock { $0 } == 19)
        #expect(watch.lock.withLock { watch.niceAtCommit } == [callers])
        #expect(committer.finish() == nil)
        try journal.close()
    }
    #endif

    /// Suspended callers and blocked callers at once: every row is committed
    /// under its own number, none twice, none lost, whoever led its transaction.
    @Test func suspendedAndBlockedCallersAllGetTheirRowsCommitted() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let journal = try Journal(directory: directory)
        let committer = GroupCommitter(journal: journal, lastSeq: 0)
        let perTask = 40
        let (threadResults, threadFinished) = AsyncStream.makeStream(of: Int.self)
        for thread in 0..<2 {
            Thread {
                var failures = 0
                for i in 0..<perTask {
                    let ticket = committer.enqueueRow(time: 1, call: Self.row(10_000 * (thread + 1) + i))
                    if committer.waitUntilDurableBlocking(ticket) != nil { failures += 1 }
                }
                threadFinished.yield(failures)
            }.start()
        }
        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<12 {
                group.addTask {
                    var failures = 0
                    for i in 0..<perTask {
                        let ticket = committer.enqueueRow(time: 1, call: Self.row(100 * task + i))
                        if await committer.waitUntilDurable(ticket) != nil { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        var blockedFailures = 0
        var threadsDone = 0
        for await failures in threadResults {
            blockedFailures += failures
            threadsDone += 1
            if threadsDone == 2 { break }
        }
        #expect(failures == 0)
        #expect(blockedFailures == 0)
        #expect(committer.finish() == nil)
        try journal.close()
        #expect(try rowNumbers(directory) == Array(1...Int64(14 * perTask)))
    }

    /// Once enough transactions have gone into the WAL, they are copied into
    /// the database file by the checkpointer's own connection (SQLite's own
    /// checkpoint waits for 10,000 pages).
    @Test func theWALIsCopiedIntoTheDatabaseFileOffTheCommitPath() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let journal = try Journal(directory: directory)
        let committer = GroupCommitter(journal: journal, lastSeq: 0)
        let file = directory.appendingPathComponent(Journal.fileName).path
        func size() -> Int { ((try? manager.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0 }
        let before = size()
        // One transaction per row: each waits before the next is queued.
        for i in 0..<(2 * WALCheckpointer.commitsPerCheckpoint + 10) {
            #expect(await committer.waitUntilDurable(committer.enqueueRow(time: 1, call: Self.row(i))) == nil)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while size() <= before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size() > before, "no page of the WAL reached the database file")
        #expect(committer.finish() == nil)
        try journal.close()
        #expect(try rowNumbers(directory).count == 2 * WALCheckpointer.commitsPerCheckpoint + 10)
    }
}
