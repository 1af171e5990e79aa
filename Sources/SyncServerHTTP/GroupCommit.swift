import Foundation
import Synchronization
import SyncCore

/// Writes journal entries on a thread of its own, several calls per
/// transaction (group commit), in the order the engine applied them.
///
/// Rules:
/// - Entries are queued under the server's state lock, right after the
///   engine step, so the journal's order is the engine-step order.
/// - A call is answered only once ``waitUntilDurable(_:)`` says its row (and
///   every row before it) is committed: a `kill -9` loses no acknowledged call.
/// - While one transaction commits, the calls that arrive queue up and go
///   into the next one; nothing waits on the state lock for the disk.
/// - When a transaction fails, every call in it and after it is answered
///   with the failure, and ``failure`` stays set: the server takes no more changes.
final class GroupCommitter: Sendable {
    private struct State {
        var pending: [Journal.Entry] = []
        /// The number of the last journal row queued.
        var seq: Int64
        /// Entries queued and entries committed, since start-up: an entry's
        /// ticket is its place in that order.
        var queued: Int64 = 0
        var durable: Int64 = 0
        /// The ticket of the last row queued (checkpoints have tickets too).
        var lastRow: Int64 = 0
        var failure: String?
        var waiters: [(seq: Int64, continuation: CheckedContinuation<String?, Never>)] = []
        var stopping = false
        var running = true
    }

    private let state: Mutex<State>
    /// Wakes the writer thread: entries queued, or stopping.
    private let condition = NSCondition()
    /// Wakes blocking waiters: rows committed, or the journal failed.
    private let committed = NSCondition()
    private let finished = DispatchSemaphore(value: 0)
    private weak let journal: Journal?

    init(journal: Journal, lastSeq: Int64) {
        self.journal = journal
        state = Mutex(State(seq: lastSeq))
        let thread = Thread { [self] in run() }
        thread.name = "syncscope journal"
        thread.start()
    }

    /// The reason the journal could not be written, once it could not.
    var failure: String? { state.withLock { $0.failure } }

    /// The ticket of the last row queued: an answer that saw the state waits
    /// for it (call under the state lock, where rows are queued). A checkpoint
    /// queued after it is not waited for: it adds nothing an answer shows.
    var lastRowTicket: Int64 { state.withLock { $0.lastRow } }

    /// The number of the last journal row queued.
    var lastSeq: Int64 { state.withLock { $0.seq } }

    /// Queues one changed call as the next journal row; returns its ticket. Call under the state lock.
    func enqueueRow(time: Milliseconds, call: PreparedCall) -> Int64 {
        let ticket = state.withLock { state -> Int64 in
            state.seq += 1
            state.queued += 1
            state.lastRow = state.queued
            state.pending.append(.row(seq: state.seq, time: time, call: call))
            return state.queued
        }
        wakeWriter()
        return ticket
    }

    /// Queues a checkpoint as of the last queued row; returns its ticket
    /// and that row's number. `encode` runs on the writer thread. Call under the state lock.
    func enqueueCheckpoint(time: Milliseconds, encode: @escaping @Sendable () throws -> Data) -> (ticket: Int64, throughSeq: Int64) {
        let queued = state.withLock { state -> (Int64, Int64) in
            state.queued += 1
            state.pending.append(.checkpoint(state: encode, throughSeq: state.seq, time: time))
            return (state.queued, state.seq)
        }
        wakeWriter()
        return queued
    }

    private func wakeWriter() {
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    /// Returns once the entry with this ticket (and every one before it) is
    /// committed (`nil`), or the journal failed (the reason).
    func waitUntilDurable(_ seq: Int64) async -> String? {
        if let done = state.withLock({ $0.durable >= seq || $0.failure != nil ? .some($0.failure) : nil }) { return done }
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let now = state.withLock { state -> String?? in
                if state.durable >= seq || state.failure != nil || !state.running { return .some(state.failure ?? (state.running ? nil : "the journal is closed")) }
                state.waiters.append((seq, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// ``waitUntilDurable(_:)`` for synchronous callers (start-up, the server's own calls).
    func waitUntilDurableBlocking(_ seq: Int64) -> String? {
        committed.lock()
        defer { committed.unlock() }
        while true {
            let done = state.withLock { state -> String?? in
                if state.durable >= seq || state.failure != nil || !state.running { return .some(state.failure ?? (state.running ? nil : "the journal is closed")) }
                return nil
            }
            if let done { return done }
            committed.wait()
        }
    }

    /// Commits what is queued, then stops the writer thread; returns the failure, if any.
    @discardableResult
    func finish() -> String? {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first {
            wakeWriter()
            finished.wait()
        }
        return state.withLock { $0.failure }
    }

    private func run() {
        while true {
            condition.lock()
            var batch: [Journal.Entry] = []
            var stop = false
            while true {
                (batch, stop) = state.withLock { state in
                    defer { state.pending = [] }
                    return (state.pending, state.stopping)
                }
                if !batch.isEmpty || stop { break }
                condition.wait()
            }
            condition.unlock()

            var failure: String?
            if !batch.isEmpty {
                if let journal {
                    do { try journal.write(batch) } catch { failure = "\(error)" }
                } else {
                    failure = "the journal is closed"
                }
            }
            let ready = state.withLock { state -> [(CheckedContinuation<String?, Never>, String?)] in
                if let failure, state.failure == nil { state.failure = failure }
                if state.failure == nil { state.durable += Int64(batch.count) }
                if stop && state.pending.isEmpty { state.running = false }
                var ready: [(CheckedContinuation<String?, Never>, String?)] = []
                state.waiters.removeAll { waiter in
                    guard waiter.seq <= state.durable || state.failure != nil || !state.running else { return false }
                    ready.append((waiter.continuation, state.failure ?? (waiter.seq <= state.durable ? nil : "the journal is closed")))
                    return true
                }
                return ready
            }
            committed.lock()
            committed.broadcast()
            committed.unlock()
            for (continuation, result) in ready { continuation.resume(returning: result) }
            if stop && state.withLock({ !$0.running }) { break }
        }
        finished.signal()
    }
}
