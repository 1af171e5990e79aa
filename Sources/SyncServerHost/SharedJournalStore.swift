import Foundation
import Synchronization
import SyncCore
import SyncServer

/// A `syncscope serve` node on a journal shared with other nodes
/// (``SharedJournal``: PostgreSQL with `serve --store postgres://…`, or
/// ``InMemorySharedJournal`` in tests): any number of nodes serve the same state.
///
/// Rules:
/// - **Writes** (every call of a route that may change the state) are
///   appended first: one appender per node drains the waiting calls into one
///   transaction (group commit, ``SharedJournalAppender``), which gives them
///   the next positions in the journal's single total order. Then, under the
///   state lock, the node applies every row up to its own, and answers from
///   its own row's step. A call is answered only after its row is committed:
///   `kill -9` of any node loses no acknowledged write.
/// - **Times.** A row keeps the time its node asked for and is applied at
///   the later of that and the time the row before it was applied at
///   (``StoreRow/appliedTime(after:)``): a function of the journal, so
///   every node applies every row at the same time, whichever node's clock
///   is behind, and an append never waits to learn the journal's time.
/// - **Reads** first catch up to the journal's tail: a read on any node
///   sees every write acknowledged before it (read-your-writes across nodes).
/// - **Push deliveries** happen only at journal positions: after each row,
///   at its time. A coalescing window that ends with no call arriving makes
///   the node whose timer fires append a `deliver` tick; every node delivers
///   at that position. A watcher on each node catches up when the tail
///   moves and wakes the long-polls of devices whose inbox grew.
/// - **Checkpoints** are taken by every node at the same positions (every
///   `checkpointEvery` rows; taking one restarts the push layer's random
///   choices from a seed in it, so it must happen at the same place on every
///   node) and stored in the journal; a node starts from the newest one.
///   Rows well behind the stored checkpoint are folded (deleted); a node that
///   far behind restores the checkpoint instead.
/// - An append whose outcome is unknown (the connection dropped during the
///   commit) is answered 503: the call may be stored, and catching up then
///   applies it. It is never assumed to have failed.
/// - A journal whose settings are gone while it holds rows or a checkpoint,
///   or whose rows after the checkpoint were folded with no checkpoint past
///   them, is refused by name: never taken for a new state.
package final class SharedJournalStore: ServerStore {
    /// The journal's call format (`callFormat` in `meta`): 1, calls with
    /// JSON bodies; 2, `records/modify` bodies in ``JournaledCallBody``'s
    /// binary form (other calls as in 1); 3, as 2, with rows that may be
    /// timed before the row ahead of them (applied at
    /// ``StoreRow/appliedTime(after:)``; ``JournaledCall`` version 2).
    /// A node reads all three: rows of 1 and 2 were appended with a time
    /// never before the row ahead, so they apply at their recorded times.
    package static let callFormat = 3

    package let journal: any SharedJournal
    /// Names this node's calls in the journal (``JournaledCall/Origin``).
    package let id: String
    package let appender: SharedJournalAppender
    /// Rows between two checkpoints, and rows kept behind the stored checkpoint.
    package let checkpointEvery: Int64
    package let keepRows: Int64
    private let requests = Atomic<UInt64>(0)
    private let tails = Mutex<TailReaders>(TailReaders())
    package let watcher = Mutex<Task<Void, Never>?>(nil)
    /// The last checkpoint write under way (each waits for the one before it).
    private let checkpointWrites = Mutex<Task<Void, Never>?>(nil)
    /// Milliseconds added to this node's wall clock when it times a call
    /// (tests: a node whose clock runs behind or ahead).
    package let clockOffset = Atomic<Int64>(0)

    package var name: String { journal.name }

    package init(journal: any SharedJournal, options: ServeOptions) {
        self.journal = journal
        id = ServerHost.randomSecret().prefix(16).lowercased()
        appender = SharedJournalAppender(journal: journal)
        checkpointEvery = Int64(max(1, options.checkpointEvery))
        keepRows = max(checkpointEvery, Int64(max(1, options.journalKeepRows)))
    }

    /// This node's wall clock: the time it asks for when it appends a call.
    package func now() -> Int64 { SystemClock().now() + clockOffset.load(ordering: .relaxed) }

    package func nextRequest() -> UInt64 { requests.add(1, ordering: .relaxed).newValue }

    // MARK: Start-up

    /// Agrees on the seed, settings and admin token through `meta` (the first
    /// node on a new journal sets them) and reads the newest checkpoint.
    package func open(options: ServeOptions) async throws -> StoreOpening {
        var generator = SystemRandomNumberGenerator()
        let proposed = [
            "seed": String(options.seed ?? UInt64.random(in: 1...UInt64.max, using: &generator)),
            "retention": options.retention.map(String.init) ?? "none",
            "coalescingWindow": String(options.coalescingWindow),
            "adminToken": "admin-" + ServerHost.randomSecret(),
            "callFormat": String(Self.callFormat),
        ]
        // What the journal holds before this node's settings could go in (see the check below).
        let heldBefore = try await journal.tail()
        let checkpoint: StoreCheckpoint?
        do { checkpoint = try await journal.checkpoint() } catch {
            throw ServeError("The checkpoint in \(name) cannot be read back (\(error)); restore the database from a copy.")
        }
        if heldBefore > 0 || checkpoint != nil, try await journal.meta()["seed"] == nil {
            // The journal holds a history but not the settings it was made with: never start it as new.
            throw ServeError(
                "The journal in \(name) holds a history (through position \(max(heldBefore, checkpoint?.through ?? 0))) but no settings (its meta rows were deleted): the seed its state was made with is gone, so it cannot be read back. Restore the database from a copy.")
        }
        let meta = try await journal.insertMetaIfAbsent(proposed)
        guard let seed = meta["seed"].flatMap(UInt64.init), let adminToken = meta["adminToken"], let window = meta["coalescingWindow"].flatMap(Milliseconds.init)
        else {
            throw ServeError("The settings in \(name) are incomplete (seed, coalescing window, admin token); restore the database from a copy.")
        }
        var report = [journal.banner]
        switch meta["callFormat"] {
        case String(Self.callFormat):
            break
        case "1", "2":
            // Format 1 rows (JSON bodies only) and format 2 rows read back as they are; from
            // now on records/modify rows carry binary bodies, which a format-1 node cannot
            // read, and rows may be timed before the row ahead of them, which a format-2 node
            // would apply at other times than the rest (its decoder refuses them: JournaledCall version 2).
            try await journal.setMeta(["callFormat": String(Self.callFormat)])
            report.append("journal calls now in format \(Self.callFormat) (stop nodes of an older syncscope: they cannot read the new rows)")
        case let format:
            throw ServeError(
                "The journal in \(name) holds calls in format \(format ?? "none"), and this syncscope reads formats 1 to \(Self.callFormat); run the syncscope that made it.")
        }
        let settings = ServerHost.Settings(retention: meta["retention"].flatMap { Int($0) }, coalescingWindow: window)
        if settings != ServerHost.Settings(retention: options.retention, coalescingWindow: options.coalescingWindow), meta["seed"] != proposed["seed"] {
            report.append("the database's settings: \(settings)")
        }
        return StoreOpening(seed: seed, settings: settings, adminToken: adminToken, checkpoint: checkpoint, report: report)
    }

    package func replay(after position: Int64, into host: ServerHost) async throws -> [String] {
        appender.onCommitted { [weak host] rows in try? host?.apply(rows) }
        var report: [String] = []
        if position > 0 { report.append("restored the checkpoint at \(position)") }
        let tail = try await journal.tail()
        do { try await host.waitUntilApplied(tail) } catch {
            throw ServeError("Cannot replay the journal in \(name): \(error)")
        }
        if tail > position { report.append("replayed \(tail - position) journal row\(tail - position == 1 ? "" : "s")") }
        return report
    }

    /// One task per node: catches up whenever the journal's tail moves (and
    /// wakes the long-polls of devices that got notifications); when the
    /// watch is lost, watches again (with a growing pause) and catches up.
    package func serve(_ host: ServerHost) {
        let journal = journal
        let task = Task { [weak host] in
            var pause: Duration = .milliseconds(100)
            while !Task.isCancelled {
                do {
                    let watch = try await journal.watchTail()
                    pause = .milliseconds(100)
                    for try await tail in watch {
                        guard let host else { return }
                        try await host.waitUntilApplied(tail)
                    }
                } catch {
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, .seconds(5))
                }
            }
        }
        watcher.withLock { $0 = task }
    }

    // MARK: Calls

    /// Reads catch up to the tail and step here; writes are appended, then
    /// applied in position order, and answered from this node's own step of their row.
    package func perform(_ prepared: PreparedCall, on host: ServerHost) async -> StoreOutcome {
        if let refusal = host.refusal {
            return StoreOutcome(outcome: StepOutcome(.tryAgainLater(refusal, retryAfter: 5)))
        }
        if Self.isRead(prepared.call) {
            do { try await host.catchUp() } catch {
                return StoreOutcome(outcome: StepOutcome(.tryAgainLater("This server cannot read the shared journal (\(error)); try again.", retryAfter: 1)))
            }
            return host.step(prepared, delivering: false)
        }
        let request = nextRequest()
        // A records/modify row keeps its prepared plan in binary: replaying it on any node decodes no JSON.
        let origin = JournaledCall.Origin(node: id, request: request)
        let journaled = JournaledCall(call: JournaledCallBody.encode(prepared), origin: origin)
        host.state.withLock { $0.ownCalls[request] = prepared }
        let position: Int64
        switch await appender.append(time: now(), call: journaled) {
        case .success(let place):
            position = place
        case .failure(let error):
            // Perhaps committed: catching up applies it then (and finds no waiting prepared call).
            host.state.withLock { _ = $0.ownCalls.removeValue(forKey: request) }
            return StoreOutcome(outcome: StepOutcome(.tryAgainLater(
                "The shared journal did not confirm the change (\(error)); it may or may not be stored. Ask again: a record's change tag tells whether it was.",
                retryAfter: 1)))
        }
        do { try await host.waitUntilApplied(position) } catch {
            host.state.withLock { state in
                state.ownCalls[request] = nil
                state.ownOutcomes[request] = nil
            }
            return StoreOutcome(outcome: StepOutcome(.tryAgainLater(
                "The change is stored, but this server cannot read the shared journal back (\(error)); ask again to see it.", retryAfter: 1)))
        }
        guard let outcome = host.state.withLock({ state in
            defer { state.ownCalls[request] = nil }
            return state.ownOutcomes.removeValue(forKey: request)
        }) else {
            return StoreOutcome(outcome: StepOutcome(.tryAgainLater("The change is stored at position \(position), but its answer was lost; ask again to see it.", retryAfter: 1)))
        }
        return StoreOutcome(outcome: outcome)
    }

    package func keep(_ prepared: PreparedCall, changed: Bool, at time: Milliseconds, _ state: inout ServerHost.State) -> Int64? { nil }

    package func isOwn(_ origin: JournaledCall.Origin) -> Bool { origin.node == id }

    /// Reads waiting for the journal's tail: one query serves every read that
    /// arrived before it started (a query already running when a read arrives
    /// may miss a write acknowledged just before the read, so that read waits for the next).
    package struct TailReaders {
        package var waiting: [CheckedContinuation<Result<Int64, any Error>, Never>] = []
        package var running = false
    }

    /// The journal's tail as of a moment after this call began.
    package func tail() async throws -> Int64 {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int64, any Error>, Never>) in
            let start = tails.withLock { tails -> Bool in
                tails.waiting.append(continuation)
                guard !tails.running else { return false }
                tails.running = true
                return true
            }
            if start { Task { await self.readTails() } }
        }
        return try result.get()
    }

    private func readTails() async {
        while true {
            let waiting = tails.withLock { tails -> [CheckedContinuation<Result<Int64, any Error>, Never>] in
                defer { tails.waiting = [] }
                if tails.waiting.isEmpty { tails.running = false }
                return tails.waiting
            }
            guard !waiting.isEmpty else { return }
            let result: Result<Int64, any Error>
            do { result = .success(try await journal.tail()) } catch { result = .failure(error) }
            for continuation in waiting { continuation.resume(returning: result) }
        }
    }

    package func rows(after position: Int64) async throws -> [StoreRow] {
        try await journal.rows(after: position, limit: 1000).map { row in
            let journaled: JournaledCall
            do { journaled = try JournaledCall.decode(row.call) } catch {
                throw ServeError("row \(row.position) of the journal in \(name) cannot be read (\(error))")
            }
            return StoreRow(position: row.position, time: row.time, call: journaled.call, origin: journaled.origin)
        }
    }

    package func checkpoint() async throws -> StoreCheckpoint? { try await journal.checkpoint() }

    package func checkpointDue(at position: Int64) -> Bool { position % checkpointEvery == 0 }

    package func storeCheckpoint(through position: Int64, time: Milliseconds, file: ServerStateFile) {
        let (journal, keep) = (journal, keepRows)
        // One checkpoint write at a time, in order; `stop` waits for the last one,
        // so nothing is written to the journal after a clean stop.
        checkpointWrites.withLock { last in
            let previous = last
            last = Task.detached(priority: .background) {
                await previous?.value
                await Self.writeCheckpoint(journal, through: position, time: time, file: file, keep: keep)
            }
        }
    }

    private static func writeCheckpoint(
        _ journal: any SharedJournal, through position: Int64, time: Milliseconds, file: ServerStateFile, keep: Int64
    ) async {
        guard let data = try? CheckpointFormat.encode(file) else { return }
        let stored = (try? await journal.storeCheckpoint(StoreCheckpoint(through: position, time: time, state: data))) ?? false
        // The journal does not grow forever: rows well behind the stored checkpoint go
        // (a live node is rarely that far behind; one that is restores the checkpoint instead).
        if stored, position > keep { _ = try? await journal.foldRows(through: position - keep) }
    }

    /// When a coalescing window ends: appends a tick (unless a row came
    /// meanwhile that delivered everything due), so every node delivers then.
    package func deliver(dueAt time: Milliseconds, on host: ServerHost) async {
        guard host.deliveryDue(timerAt: time) else { return }
        let tick = JournaledCall(call: APICall(method: "POST", path: ServerHost.deliverTickPath, isServerCall: true), origin: nil)
        if case .success(let position) = await appender.append(time: now(), call: tick) {
            try? await host.waitUntilApplied(position)
        }
    }

    /// Checkpoints are taken at fixed positions on every node, not on demand.
    package func checkpointNow(_ host: ServerHost) async {}

    /// Returns once every checkpoint queued so far is written (and the rows it lets go folded).
    package func checkpointsWritten() async {
        await checkpointWrites.withLock { $0 }?.value
    }

    /// A clean stop of a node: takes no more calls and stops watching. Every
    /// acknowledged call is already committed in the journal; checkpoints are
    /// taken at fixed positions, not at a stop.
    package func stop(_ host: ServerHost) async -> String {
        guard host.markStopped() else { return "already stopped" }
        watcher.withLock { $0?.cancel() }
        await checkpointsWritten()
        journal.close()
        return "every acknowledged call is in \(name); this node: \(journal.summary)"
    }

    package func abandon() async { journal.close() }

    package func usersChanged(_ users: [UserAccount]) throws {}

    // MARK: Long-polls across nodes

    package func pollClaimant() -> String? { "\(id)/\(nextRequest())" }

    package func openPoll(device: String, poll: String, until: Milliseconds) async {
        try? await journal.openPoll(device: device, poll: poll, until: until)
    }

    package func endPoll(device: String, poll: String, until: Milliseconds) async {
        try? await journal.endPoll(device: device, poll: poll, until: until)
    }

    package func livePollsUntil(device: String, now: Milliseconds) async throws -> Milliseconds? {
        try await journal.livePollsUntil(device: device, now: now)
    }

    package func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Milliseconds, lease: Milliseconds) async throws -> [String] {
        try await journal.claimDeliveries(device: device, notificationIDs: notificationIDs, claimant: claimant, now: now, leaseMilliseconds: lease)
    }

    package func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async {
        try? await journal.finishDeliveries(device: device, notificationIDs: notificationIDs, claimant: claimant, written: written)
    }

    package func writtenDeliveries(device: String) async -> [String] {
        (try? await journal.writtenDeliveries(device: device)) ?? []
    }

    package func dropDeliveries(device: String, notificationIDs: [String]) async {
        try? await journal.dropDeliveries(device: device, notificationIDs: notificationIDs)
    }

    /// Whether a call only reads: it is not appended, and is answered after catching up to the tail.
    /// Its route in ``WebServicesRoute/table`` says; a path no route has is a write (appended, and
    /// refused the same way on every node).
    package static func isRead(_ call: APICall) -> Bool {
        WebServicesRoute.route(of: call.path)?.access == .read
    }
}
