import Foundation
import SyncServerHost
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SyncCore

/// Writes journal entries several calls per transaction (group commit), in
/// the order the engine applied them.
///
/// Rules:
/// - Rows are queued under the server's state lock, right after the engine
///   step, so the journal's order is the engine-step order. A row's ticket
///   is its place in that order (1, 2, …).
/// - A call is answered only once ``waitUntilDurable(_:)`` says its row (and
///   every row before it) is committed: a `kill -9` loses no acknowledged call.
/// - Rows have no thread of their own. A waiting call that finds no
///   transaction under way **leads**: it commits everything queued, on its
///   own thread, then resumes the calls that transaction made durable (one
///   continuation resume each) and hands the lead to one call still waiting,
///   whose transaction then holds every row queued meanwhile. So while one
///   transaction commits, the calls that arrive queue up and go into the
///   next one, and nothing waits on the state lock for the disk.
/// - `committing` is set only while a thread is running a transaction: a
///   blocking caller (start-up, the server's own calls) never waits for a
///   suspended task to lead; it leads itself when nobody commits.
/// - Checkpoints are taken under the state lock, then encoded on a thread of
///   their own at the lowest priority (a row never waits for one to be encoded,
///   and the calls get the cores first), and committed after
///   the rows they hold, deleting them, by another thread of their own at the
///   calls' priority: while a checkpoint commits, the calls wait for it, so
///   it must not wait for the cores behind them. Their tickets are counted
///   apart (``CheckpointTicket``).
/// - When a transaction fails, every call in it and after it is answered
///   with the failure, and ``failure`` stays set: the server takes no more changes.
package final class GroupCommitter: Sendable {
    /// A checkpoint's place among the checkpoints queued since start-up.
    package struct CheckpointTicket: Sendable, Equatable {
        package var number: Int64
    }

    /// What wakes a suspended call: its row is durable (or the journal
    /// failed: the reason), or it is to lead the next transaction.
    private enum Wake {
        case done(String?)
        case lead
    }

    private struct Waiter {
        package var ticket: Int64
        package var continuation: CheckedContinuation<Wake, Never>
    }

    private struct PendingCheckpoint {
        package var ticket: Int64
        package var throughSeq: Int64
        package var time: Milliseconds
        package var encode: @Sendable () throws -> Data
    }

    private struct State {
        package var pending: [Journal.Entry] = []
        /// The number of the last journal row queued.
        package var seq: Int64
        /// Rows committed since start-up (tickets; the rows queued are counted in `queuedRows`).
        package var durable: Int64 = 0
        /// A thread is running a transaction now.
        package var committing = false
        /// A call has taken the lead of the next transaction and lets the
        /// calls ready to run queue their rows first (``waitUntilDurable(_:)``);
        /// `gatherer` tells it whether a blocked caller took the lead over meanwhile.
        package var gathering = false
        package var gatherer: UInt64 = 0
        package var failure: String?
        /// Calls suspended until their rows are durable (or they are to lead).
        package var waiters: [Waiter] = []
        /// Callers blocked in ``waitUntilDurableBlocking(_:)``, and a
        /// counter that moves at the end of every transaction (what they wait for).
        package var blockingWaiters = 0
        package var generation: UInt64 = 0
        /// Checkpoints queued and committed since start-up, and those waiting to be encoded.
        package var checkpointsQueued: Int64 = 0
        package var checkpointsDurable: Int64 = 0
        package var toEncode: [PendingCheckpoint] = []
        /// Checkpoints encoded, for the commit thread to queue and commit.
        package var encoded: [Journal.Entry] = []
        /// The encoder has stopped: the commit thread stops once `encoded` is empty.
        package var encoderDone = false
        package var stopping = false
        /// After ``finish()``: nothing more is committed.
        package var closed = false
    }

    private let state: Mutex<State>
    /// Rows queued since start-up: the last one's ticket. Moved only under
    /// `state`'s lock (``enqueueRow(time:call:)``), read without it: the
    /// server reads it on every call, under its own state lock, where rows are queued.
    private let queuedRows: Atomic<Int64>
    /// Wakes blocked callers at the end of a transaction.
    private let progress = NSCondition()
    /// Wakes the checkpoint encoder: a checkpoint queued, or stopping.
    private let encoderWork = NSCondition()
    /// Wakes the checkpoint commit thread: a checkpoint encoded, or the encoder stopped.
    private let commitWork = NSCondition()
    /// Signalled once every checkpoint encoded is queued and the checkpoint threads have stopped.
    private let checkpointsFinished = DispatchSemaphore(value: 0)
    private weak let journal: Journal?

    package init(journal: Journal, lastSeq: Int64) {
        self.journal = journal
        state = Mutex(State(seq: lastSeq))
        queuedRows = Atomic(0)
        let encoder = Thread { [self] in
            Self.yieldCoresToCalls()
            encodeCheckpoints()
        }
        encoder.name = "syncscope checkpoints"
        encoder.start()
        // Created here, so it keeps this thread's scheduling (the calls').
        let committer = Thread { [self] in commitCheckpoints() }
        committer.name = "syncscope checkpoint commits"
        committer.start()
    }

    /// The reason the journal could not be written, once it could not.
    package var failure: String? { state.withLock { $0.failure } }

    /// The ticket of the last row queued: an answer that saw the state waits
    /// for it (call under the state lock, where rows are queued).
    package var lastRowTicket: Int64 { queuedRows.load(ordering: .acquiring) }

    /// The number of the last journal row queued.
    package var lastSeq: Int64 { state.withLock { $0.seq } }

    /// A checkpoint is queued and not yet committed (being encoded, or waiting for its transaction).
    package var checkpointUnderWay: Bool { state.withLock { $0.checkpointsQueued > $0.checkpointsDurable } }

    /// Queues one changed call as the next journal row; returns its ticket.
    /// Call under the state lock. Wakes nobody: the call waiting for it commits it (or joins a transaction under way).
    @discardableResult
    package func enqueueRow(time: Milliseconds, call: PreparedCall) -> Int64 {
        state.withLock { state -> Int64 in
            state.seq += 1
            state.pending.append(.row(seq: state.seq, time: time, call: call))
            return queuedRows.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        }
    }

    /// Queues a checkpoint as of the last queued row; returns its ticket and
    /// that row's number. `encode` runs on the checkpoint thread. Call under the state lock.
    package func enqueueCheckpoint(time: Milliseconds, encode: @escaping @Sendable () throws -> Data) -> (ticket: CheckpointTicket, throughSeq: Int64) {
        let queued = state.withLock { state -> (Int64, Int64) in
            state.checkpointsQueued += 1
            state.toEncode.append(PendingCheckpoint(ticket: state.checkpointsQueued, throughSeq: state.seq, time: time, encode: encode))
            return (state.checkpointsQueued, state.seq)
        }
        Self.signal(encoderWork)
        return (CheckpointTicket(number: queued.0), queued.1)
    }

    /// Returns once the row with this ticket (and every one before it) is
    /// committed (`nil`), or the journal failed (the reason). May lead the transaction that commits it.
    package func waitUntilDurable(_ ticket: Int64) async -> String? {
        while true {
            let step = state.withLock { state -> Step in
                let step = check(ticket, &state, taking: false)
                guard case .lead = step, !state.gathering else { return step }
                state.gathering = true
                state.gatherer &+= 1
                return .gather(state.gatherer)
            }
            switch step {
            case .done(let result): return result
            case .lead: continue
            case .gather(let gatherer):
                // Under load other calls are ready to run, each about to queue
                // its row: letting them run first puts their rows into this
                // transaction (one commit for many calls, not one each). With
                // nothing else ready, this returns at once.
                await Task.yield()
                let batch = state.withLock { state -> [Journal.Entry]? in
                    guard state.gathering, state.gatherer == gatherer else { return nil }
                    state.gathering = false
                    return takeBatch(&state)
                }
                if let batch { commitLeading(batch) }
            case .wait:
                let wake = await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                    let now = state.withLock { state -> Wake? in
                        switch check(ticket, &state, taking: false) {
                        case .done(let result): return .done(result)
                        case .lead, .gather: return .lead
                        case .wait:
                            state.waiters.append(Waiter(ticket: ticket, continuation: continuation))
                            return nil
                        }
                    }
                    if let now { continuation.resume(returning: now) }
                }
                if case .done(let result) = wake { return result }
            }
        }
    }

    /// ``waitUntilDurable(_:)`` for synchronous callers (start-up, the server's own calls).
    package func waitUntilDurableBlocking(_ ticket: Int64) -> String? {
        waitBlocking { state in check(ticket, &state) }
    }

    /// Blocks until the checkpoint with this ticket is committed (`nil`), or the journal failed (the reason).
    package func waitUntilDurableBlocking(_ ticket: CheckpointTicket) -> String? {
        waitBlocking { state in
            if state.checkpointsDurable >= ticket.number { return .done(nil) }
            if let failure = state.failure { return .done(failure) }
            if state.closed { return .done("the journal is closed") }
            if let batch = takeBatch(&state, overGatherer: true) { return .lead(batch) }
            return .wait
        }
    }

    /// Commits what is queued (checkpoints included), then closes: returns the failure, if any.
    @discardableResult
    package func finish() -> String? {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return state.withLock { $0.failure } }
        Self.signal(encoderWork)
        // Every checkpoint queued before this is encoded and committed before the checkpoint threads stop.
        checkpointsFinished.wait()
        let (lastRow, lastCheckpoint) = state.withLock { (queuedRows.load(ordering: .acquiring), $0.checkpointsQueued) }
        _ = waitUntilDurableBlocking(lastRow)
        _ = waitUntilDurableBlocking(CheckpointTicket(number: lastCheckpoint))
        let (failure, waiters) = state.withLock { state -> (String?, [Waiter]) in
            state.closed = true
            state.generation &+= 1
            defer { state.waiters = [] }
            return (state.failure, state.waiters)
        }
        for waiter in waiters { waiter.continuation.resume(returning: .done(failure ?? "the journal is closed")) }
        wakeBlocked()
        return failure
    }

    // MARK: Leading

    private enum Step {
        case done(String?)
        case lead([Journal.Entry])
        /// An async call took the lead and gathers rows before it commits them.
        case gather(UInt64)
        case wait
    }

    /// What a call waiting for row `ticket` does now. Call under the lock.
    /// `taking`: a blocking caller takes the batch at once (even from a call
    /// gathering one: it never waits for a suspended task); an async caller
    /// is told to lead when nobody commits or gathers, and takes the batch later.
    private func check(_ ticket: Int64, _ state: inout State, taking: Bool = true) -> Step {
        if ticket <= state.durable { return .done(nil) }
        if let failure = state.failure { return .done(failure) }
        if state.closed { return .done("the journal is closed") }
        if taking, let batch = takeBatch(&state, overGatherer: true) { return .lead(batch) }
        if !taking, !state.committing, !state.gathering, !state.pending.isEmpty { return .lead([]) }
        return .wait
    }

    /// Everything queued, as the next transaction, if none is under way (nor
    /// gathered by a call, unless `overGatherer`). Call under the lock.
    private func takeBatch(_ state: inout State, overGatherer: Bool = false) -> [Journal.Entry]? {
        guard !state.committing, overGatherer || !state.gathering, state.failure == nil, !state.closed, !state.pending.isEmpty else { return nil }
        state.committing = true
        state.gathering = false
        defer { state.pending = [] }
        return state.pending
    }

    /// Blocks, leading whenever nobody commits, until `check` says done.
    private func waitBlocking(_ check: (inout State) -> Step) -> String? {
        while true {
            var seen: UInt64 = 0
            let step = state.withLock { state -> Step in
                let step = check(&state)
                if case .wait = step {
                    state.blockingWaiters += 1
                    seen = state.generation
                }
                return step
            }
            switch step {
            case .done(let result): return result
            case .lead(let batch): commitLeading(batch)
            case .gather: continue
            case .wait:
                progress.lock()
                while state.withLock({ $0.generation }) == seen { progress.wait() }
                progress.unlock()
                state.withLock { $0.blockingWaiters -= 1 }
            }
        }
    }

    private func wakeBlocked() {
        progress.lock()
        progress.broadcast()
        progress.unlock()
    }

    /// Commits `batch` (taken with ``takeBatch(_:)``), and the next ones
    /// while no waiting call can take the lead over.
    private func commitLeading(_ batch: [Journal.Entry]) {
        var next: [Journal.Entry]? = batch
        while let batch = next, !batch.isEmpty { next = commit(batch) }
    }

    /// One transaction; then resumes the calls it made durable, and hands
    /// the lead on when entries are queued: to one suspended call if any,
    /// else returns the next batch for this thread to commit. Blocked callers
    /// are woken after every transaction: they lead when nobody commits.
    private func commit(_ batch: [Journal.Entry]) -> [Journal.Entry]? {
        var failure: String?
        if let journal {
            do { try journal.write(batch) } catch { failure = "\(error)" }
        } else {
            failure = "the journal is closed"
        }
        var rows: Int64 = 0
        var checkpoints: Int64 = 0
        for entry in batch {
            if case .row = entry { rows += 1 } else { checkpoints += 1 }
        }
        var resume: [(CheckedContinuation<Wake, Never>, Wake)] = []
        let (next, wakeBlocked) = state.withLock { state -> ([Journal.Entry]?, Bool) in
            state.committing = false
            state.generation &+= 1
            if let failure, state.failure == nil { state.failure = failure }
            if let failure = state.failure {
                state.pending = []
                for waiter in state.waiters { resume.append((waiter.continuation, .done(failure))) }
                state.waiters = []
                return (nil, state.blockingWaiters > 0)
            }
            state.durable += rows
            state.checkpointsDurable += checkpoints
            let durable = state.durable
            state.waiters.removeAll { waiter in
                guard waiter.ticket <= durable else { return false }
                resume.append((waiter.continuation, .done(nil)))
                return true
            }
            let blocked = state.blockingWaiters > 0
            guard !state.pending.isEmpty else { return (nil, blocked) }
            if !state.waiters.isEmpty {
                // Blocked callers hear of it too: one whose row is queued leads first, and none waits for this task.
                resume.append((state.waiters.removeFirst().continuation, .lead))
                return (nil, blocked)
            }
            return (takeBatch(&state), blocked)
        }
        if wakeBlocked { self.wakeBlocked() }
        for (continuation, wake) in resume { continuation.resume(returning: wake) }
        return next
    }

    // MARK: Checkpoints

    /// The checkpoint thread runs at the lowest priority (nice 19 on Linux, a
    /// per-thread setting there): it encodes while the cores have nothing
    /// else to do, the calls waiting for answers go first, and on cores kept
    /// busy it still gets a small share and finishes (the server queues no
    /// other periodic checkpoint meanwhile: ``checkpointUnderWay``). A thread
    /// inherits its creator's scheduling policy: a server started under a
    /// real-time policy (`chrt`) would give this thread the same real-time
    /// priority as the calls, where a nice value counts for nothing, so the
    /// thread first takes the ordinary policy (lowering a policy needs no privilege).
    private static func yieldCoresToCalls() {
        #if os(Linux)
        var ordinary = sched_param(sched_priority: 0)
        if sched_getscheduler(0) != SCHED_OTHER { _ = sched_setscheduler(0, SCHED_OTHER, &ordinary) }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }

    /// The checkpoint thread: encodes each queued checkpoint (off the state
    /// lock, and without holding back any row) and hands it to the commit thread.
    private func encodeCheckpoints() {
        while let work = waitForWork(on: encoderWork, { state in (state.toEncode.isEmpty ? nil : state.toEncode.removeFirst(), state.stopping) }) {
            let entry: Journal.Entry?
            var failure: String?
            do {
                let data = try work.encode()
                var crc = CRC32()
                crc.add(data)
                entry = .checkpoint(state: data, checksum: Int64(crc.value), throughSeq: work.throughSeq, time: work.time)
            } catch {
                entry = nil
                failure = "the checkpoint could not be encoded (\(error))"
            }
            if let entry {
                state.withLock { $0.encoded.append(entry) }
                Self.signal(commitWork)
                continue
            }
            let (resume, blocked) = state.withLock { state -> ([Waiter], Bool) in
                if state.failure == nil { state.failure = failure }
                state.pending = []
                state.generation &+= 1
                defer { state.waiters = [] }
                return (state.waiters, state.blockingWaiters > 0)
            }
            for waiter in resume { waiter.continuation.resume(returning: .done(failure)) }
            if blocked { wakeBlocked() }
        }
        state.withLock { $0.encoderDone = true }
        Self.signal(commitWork)
    }

    /// The checkpoint commit thread: queues each encoded checkpoint behind the
    /// rows it holds and commits it (or leaves it to the transaction under
    /// way, whose leader commits it), at the calls' priority.
    private func commitCheckpoints() {
        while let entry = waitForWork(on: commitWork, { state in (state.encoded.isEmpty ? nil : state.encoded.removeFirst(), state.encoderDone) }) {
            let batch = state.withLock { state -> [Journal.Entry]? in
                state.pending.append(entry)
                return takeBatch(&state)
            }
            if let batch { commitLeading(batch) }
            // A checkpoint left to the transaction under way is committed by its leader (or the one it hands over to).
        }
        checkpointsFinished.signal()
    }

    /// Waits on `condition` until `next` (under the state lock) finds work, returned, or says to stop (`nil`).
    private func waitForWork<Work>(on condition: NSCondition, _ next: (inout State) -> (work: Work?, stop: Bool)) -> Work? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let (work, stop) = state.withLock { next(&$0) }
            if work != nil || stop { return work }
            condition.wait()
        }
    }

    /// Wakes the thread waiting on `condition` (it checks for work under the condition's lock, so no wake is lost).
    private static func signal(_ condition: NSCondition) {
        condition.lock()
        condition.signal()
        condition.unlock()
    }
}
