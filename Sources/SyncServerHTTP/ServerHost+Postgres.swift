import Foundation
import Logging
import Synchronization
import SyncCore
import SyncWire
import SyncPostgres
import SyncServer

/// A `syncscope serve` node on a journal shared in PostgreSQL
/// (`serve --store postgres://…`): any number of nodes serve the same state.
///
/// Rules:
/// - **Writes** (every call of a route that may change the state) are
///   appended first: one appender per node drains the waiting calls into one
///   transaction (group commit), which gives them the next positions in the
///   journal's single total order. Then, under the state lock, the node
///   applies every row up to its own, and answers from its own row's step. A call is answered only after its row
///   is committed: `kill -9` of any node loses no acknowledged write.
/// - **Times.** A row keeps the time its node asked for and is applied at
///   the later of that and the time the row before it was applied at
///   (``JournalRow/appliedTime(after:)``): a function of the journal, so
///   every node applies every row at the same time, whichever node's clock
///   is behind, and an append never waits to learn the journal's time.
/// - **Reads** first catch up to the journal's tail: a read on any node
///   sees every write acknowledged before it (read-your-writes across nodes).
/// - **Push deliveries** happen only at journal positions: after each row,
///   at its time. A coalescing window that ends with no call arriving makes
///   the node whose timer fires append a `deliver` tick; every node delivers
///   at that position. A watcher (`LISTEN`) on each node catches up when the
///   tail moves and wakes the long-polls of devices whose inbox grew.
/// - **Checkpoints** are taken by every node at the same positions (every
///   `checkpointEvery` rows; taking one restarts the push layer's random
///   choices from a seed in it, so it must happen at the same place on every
///   node) and stored in PostgreSQL; a node starts from the newest one.
/// - An append whose outcome is unknown (the connection dropped during the
///   commit) is answered 503: the call may be stored, and catching up then
///   applies it. It is never assumed to have failed.
final class PostgresNode: Sendable {
    /// The journal's call format (`callFormat` in `meta`): 1, calls with
    /// JSON bodies; 2, `records/modify` bodies in ``JournaledCallBody``'s
    /// binary form (other calls as in 1); 3, as 2, with rows that may be
    /// timed before the row ahead of them (applied at
    /// ``JournalRow/appliedTime(after:)``; ``JournaledCall`` version 2).
    /// A node reads all three: rows of 1 and 2 were appended with a time
    /// never before the row ahead, so they apply at their recorded times.
    static let sharedCallFormat = 3

    let store: PostgresJournalStore
    /// Names this node's calls in the journal (``JournaledCall/Origin``).
    let id: String
    let appender: PostgresAppender
    private let requests = Atomic<UInt64>(0)
    let gate = Mutex<CatchUpGate>(CatchUpGate())
    let tails = Mutex<TailReaders>(TailReaders())
    let watcher = Mutex<Task<Void, Never>?>(nil)
    /// The time the last applied row was applied at (the row after it applies
    /// at ``JournalRow/appliedTime(after:)`` this). Written only under the
    /// host's state lock, with ``ServerHost/State/applied``.
    let appliedTime = Atomic<Int64>(0)
    /// Milliseconds added to this node's wall clock when it times a call
    /// (tests: a node whose clock runs behind or ahead).
    let clockOffset = Atomic<Int64>(0)

    /// This node's wall clock: the time it asks for when it appends a call.
    func now() -> Int64 { SystemClock().now() + clockOffset.load(ordering: .relaxed) }

    init(store: PostgresJournalStore) {
        self.store = store
        id = ServerHost.randomSecret().prefix(16).lowercased()
        appender = PostgresAppender(store: store)
    }

    func nextRequest() -> UInt64 { requests.add(1, ordering: .relaxed).newValue }

    /// Reads waiting for the journal's tail: one query serves every read that
    /// arrived before it started (a query already running when a read arrives
    /// may miss a write acknowledged just before the read, so that read waits for the next).
    struct TailReaders {
        var waiting: [CheckedContinuation<Result<Int64, any Error>, Never>] = []
        var running = false
    }

    /// The journal's tail as of a moment after this call began.
    func currentTail() async throws -> Int64 {
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
            do { result = .success(try await store.tail()) } catch { result = .failure(error) }
            for continuation in waiting { continuation.resume(returning: result) }
        }
    }

    /// Waiters for the node to have applied a position; one of them at a time fetches and applies.
    struct CatchUpGate {
        var waiters: [(target: Int64, continuation: CheckedContinuation<(any Error)?, Never>)] = []
        var running = false
    }
}

/// One transaction for every call waiting while the previous one commits.
final class PostgresAppender: Sendable {
    typealias Outcome = Result<PostgresJournalStore.Appended, any Error>
    private struct Pending: Sendable {
        var time: Int64
        var call: Data
        var continuation: CheckedContinuation<Outcome, Never>
    }
    private struct State {
        var queue: [Pending] = []
        var running = false
    }
    private let state = Mutex(State())
    private let store: PostgresJournalStore
    static let maxBatch = 256
    /// Applies a committed batch on this node before its callers resume
    /// (saves fetching rows it already holds); rows out of turn are left to catching up.
    private let applyCommitted = Mutex<(@Sendable ([JournalRow]) -> Void)?>(nil)

    func onCommitted(_ apply: @escaping @Sendable ([JournalRow]) -> Void) { applyCommitted.withLock { $0 = apply } }

    init(store: PostgresJournalStore) { self.store = store }

    /// Appends one call; returns its position and recorded time once its transaction commits.
    func append(time: Int64, call: Data) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let start = state.withLock { state -> Bool in
                state.queue.append(Pending(time: time, call: call, continuation: continuation))
                guard !state.running else { return false }
                state.running = true
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Pending]? in
                guard !state.queue.isEmpty else {
                    state.running = false
                    return nil
                }
                let count = min(state.queue.count, Self.maxBatch)
                defer { state.queue.removeFirst(count) }
                return Array(state.queue.prefix(count))
            }
            guard let batch else { return }
            do {
                // One statement, never sent again: each row keeps the time its caller asked for.
                let appended = try await store.append(batch.map { (time: $0.time, call: $0.call) })
                if let apply = applyCommitted.withLock({ $0 }) {
                    apply(zip(batch, appended).map { JournalRow(position: $1.position, time: $1.time, call: $0.call, checksum: 0) })
                }
                for (pending, place) in zip(batch, appended) { pending.continuation.resume(returning: .success(place)) }
            } catch {
                for pending in batch { pending.continuation.resume(returning: .failure(error)) }
            }
        }
    }
}

extension ServerHost {
    /// Starts a node on the shared journal at `url`: opens the store, agrees
    /// on the seed, settings and admin token through `meta` (the first node
    /// on a new database sets them), restores the newest checkpoint, replays
    /// the rows after it, adds the configured users that are missing, then
    /// watches the journal. Store problems come back as ``ServeError``s with
    /// the store's sentence (unreachable, credentials, not migrated, other version).
    public static func start(options: ServeOptions, store url: PostgresStoreURL) async throws -> ServerHost {
        let store: PostgresJournalStore
        // The driver's own notices (such as a connection leased while its pool starts) are no news to a user.
        var logger = Logger(label: "syncscope.postgres")
        logger.logLevel = .error
        do { store = try await PostgresJournalStore.open(url, logger: logger) } catch let error as PostgresStoreError {
            throw ServeError(error.description)
        }
        do {
            return try await start(options: options, store: store)
        } catch {
            store.close()
            if let error = error as? ServeError { throw error }
            throw ServeError("Cannot start on \(url): \(error)")
        }
    }

    private static func start(options: ServeOptions, store: PostgresJournalStore) async throws -> ServerHost {
        var generator = SystemRandomNumberGenerator()
        let proposed = [
            "seed": String(options.seed ?? UInt64.random(in: 1...UInt64.max, using: &generator)),
            "retention": options.retention.map(String.init) ?? "none",
            "coalescingWindow": String(options.coalescingWindow),
            "adminToken": "admin-" + randomSecret(),
            "callFormat": String(PostgresNode.sharedCallFormat),
        ]
        let meta = try await store.insertMetaIfAbsent(proposed)
        guard let seed = meta["seed"].flatMap(UInt64.init), let adminToken = meta["adminToken"], let window = meta["coalescingWindow"].flatMap(Milliseconds.init)
        else {
            throw ServeError("The settings in '\(store.url.database)' at \(store.url.hostAndPort) are incomplete (seed, coalescing window, admin token); restore the database from a copy.")
        }
        var upgraded = false
        switch meta["callFormat"] {
        case String(PostgresNode.sharedCallFormat):
            break
        case "1", "2":
            // Format 1 rows (JSON bodies only) and format 2 rows read back as they are; from
            // now on records/modify rows carry binary bodies, which a format-1 node cannot
            // read, and rows may be timed before the row ahead of them, which a format-2 node
            // would apply at other times than the rest (its decoder refuses them: JournaledCall version 2).
            try await store.setMeta(["callFormat": String(PostgresNode.sharedCallFormat)])
            upgraded = true
        case let format:
            throw ServeError(
                "The journal in '\(store.url.database)' holds calls in format \(format ?? "none"), and this syncscope reads formats 1 to \(PostgresNode.sharedCallFormat); run the syncscope that made it.")
        }
        let retention = meta["retention"].flatMap { Int($0) }
        let settings = Settings(retention: retention, coalescingWindow: window)
        var report: [String] = ["store \(store.url)"]
        if upgraded { report.append("journal calls now in format \(PostgresNode.sharedCallFormat) (stop nodes of an older syncscope: they cannot read the new rows)") }
        if settings != Settings(retention: options.retention, coalescingWindow: options.coalescingWindow), meta["seed"] != proposed["seed"] {
            report.append("the database's settings: \(settings)")
        }
        let clock = CallClock()
        let core = makeCore(seed: seed, settings: settings, clock: clock)
        var applied: Int64 = 0
        if let checkpoint = try await store.checkpoint() {
            do {
                try restore(try CheckpointFormat.decode(checkpoint.state), into: core)
            } catch {
                throw ServeError("The checkpoint in '\(store.url.database)' at \(store.url.hostAndPort) cannot be read back (\(error)); restore the database from a copy.")
            }
            clock.set(checkpoint.time)
            applied = checkpoint.throughPosition
            report.append("restored the checkpoint at \(applied)")
        }
        var serveOptions = options
        serveOptions.dataDirectory = nil
        let node = PostgresNode(store: store)
        node.appliedTime.store(clock.now(), ordering: .relaxed)
        let host = ServerHost(options: serveOptions, clock: clock, core: core, postgres: node, applied: applied, adminToken: adminToken)
        node.appender.onCommitted { [weak host] rows in try? host?.apply(rows, node: node) }
        let tail = try await store.tail()
        do { try await host.waitUntilApplied(tail) } catch {
            throw ServeError("Cannot replay the journal in '\(store.url.database)' at \(store.url.hostAndPort): \(error)")
        }
        if tail > applied { report.append("replayed \(tail - applied) journal row\(tail - applied == 1 ? "" : "s")") }
        host.setStartupReport(report.joined(separator: ", "))
        for user in options.effectiveUsers where host.account(user) == nil {
            let answer = await host.performAsync(.server("addUser", DispatcherInternal.AddUser(name: user)))
            guard answer.status == 200 || host.account(user) != nil else {
                throw ServeError("Cannot add user '\(user)': \(answer.wireError?.reason ?? "status \(answer.status)")")
            }
        }
        if let file = options.importFile {
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                throw ServeError("Cannot read \(file.path): \(error.localizedDescription)")
            }
            var call = APICall.server("import", WireEmpty())
            call.body = data
            let answer = await host.performAsync(call)
            guard answer.status == 200 else {
                let reason = (answer.wireError?.reason ?? "status \(answer.status)").replacingOccurrences(of: "The request body", with: "The file")
                throw ServeError("Cannot import \(file.path) (a state file from `syncscope client export`): \(reason)")
            }
        }
        host.startWatching(node)
        return host
    }

    // MARK: Calls

    /// Whether a call only reads: it is not appended, and is answered after catching up to the tail.
    /// Its route in ``WebServicesRoute/table`` says (a path no route has is refused before this is asked).
    static func isRead(_ call: APICall) -> Bool {
        WebServicesRoute.route(of: call.path)?.access == .read
    }

    /// ``performAsync(_:)`` on a shared journal.
    func performOnJournal(_ call: APICall, node: PostgresNode) async -> APIAnswer {
        var call = call
        let isImport = call.path.hasSuffix("/import") && (call.isServerAdmin || call.isServerCall)
        if isImport {
            // Users another node added keep their tokens too.
            try? await waitUntilApplied(try await node.currentTail())
            call.body = withServerTokens(call.body)
        }
        let prepared = APIDispatcher.prepare(call)
        if case .refused(let answer) = prepared.route { return answer }
        if let refusal = state.withLock({ state in state.stopped ? "The server is stopping; try again when it is back." : state.storageFailure }) {
            return .tryAgainLater(refusal, retryAfter: 5)
        }
        if Self.isRead(call) {
            do { try await waitUntilApplied(try await node.currentTail()) } catch {
                return .tryAgainLater("This server cannot read the shared journal (\(error)); try again.", retryAfter: 1)
            }
            let outcome = state.withLock { state in
                APIDispatcher(core: state.core, now: max(clock.now(), SystemClock().now()), baseURL: state.baseURL).step(prepared)
            }
            return outcome.answer()
        }
        let request = node.nextRequest()
        // A records/modify row keeps its prepared plan in binary: replaying it on any node decodes no JSON.
        let bytes = JournaledCall(call: JournaledCallBody.encode(prepared), origin: .init(node: node.id, request: request)).encoded()
        state.withLock { $0.ownCalls[request] = prepared }
        let appended: PostgresJournalStore.Appended
        switch await node.appender.append(time: node.now(), call: bytes) {
        case .success(let place):
            appended = place
        case .failure(let error):
            // Perhaps committed: catching up applies it then (and finds no waiting prepared call).
            state.withLock { _ = $0.ownCalls.removeValue(forKey: request) }
            return .tryAgainLater(
                "PostgreSQL did not confirm the change (\(error)); it may or may not be stored. Ask again: a record's change tag tells whether it was.",
                retryAfter: 1)
        }
        do { try await waitUntilApplied(appended.position) } catch {
            state.withLock { state in
                state.ownCalls[request] = nil
                state.ownOutcomes[request] = nil
            }
            return .tryAgainLater(
                "The change is stored, but this server cannot read the shared journal back (\(error)); ask again to see it.", retryAfter: 1)
        }
        guard let outcome = state.withLock({ state in
            defer { state.ownCalls[request] = nil }
            return state.ownOutcomes.removeValue(forKey: request)
        }) else {
            return .tryAgainLater("The change is stored at position \(appended.position), but its answer was lost; ask again to see it.", retryAfter: 1)
        }
        let answer = outcome.answer()
        if answer.changedState, isImport || (call.isServerAdmin && call.path.hasSuffix("/reset")) {
            for user in options.effectiveUsers where account(user) == nil {
                _ = await performOnJournal(.server("addUser", DispatcherInternal.AddUser(name: user)), node: node)
            }
        }
        return answer
    }

    /// Returns once this node has applied the journal through `target`; one
    /// caller at a time fetches and applies rows, the others wait for it.
    func waitUntilApplied(_ target: Int64) async throws {
        guard let node = postgres, state.withLock({ $0.applied }) < target else { return }
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            let start = node.gate.withLock { gate -> Bool in
                gate.waiters.append((target, continuation))
                guard !gate.running else { return false }
                gate.running = true
                return true
            }
            if start { Task { await self.runCatchUp(node) } }
        }
        if let error { throw error }
    }

    private func runCatchUp(_ node: PostgresNode) async {
        while true {
            let target = node.gate.withLock { gate -> Int64? in
                guard let target = gate.waiters.map(\.target).max() else {
                    gate.running = false
                    return nil
                }
                return target
            }
            guard let target else { return }
            var failure: (any Error)?
            do {
                while state.withLock({ $0.applied }) < target {
                    let applied = state.withLock { $0.applied }
                    let rows: [JournalRow]
                    do { rows = try await node.store.rows(after: applied, limit: 1000) } catch let error as PostgresStoreError where error.kind == .historyFolded {
                        // This node fell behind the rows kept after the checkpoint: start again from the checkpoint.
                        try await restoreFoldedHistory(node, after: applied)
                        continue
                    }
                    guard !rows.isEmpty else {
                        throw ServeError("the journal ends at position \(applied), before position \(target)")
                    }
                    try apply(rows, node: node)
                }
            } catch {
                failure = error
            }
            let applied = state.withLock { $0.applied }
            let ready = node.gate.withLock { gate -> [CheckedContinuation<(any Error)?, Never>] in
                var ready: [CheckedContinuation<(any Error)?, Never>] = []
                gate.waiters.removeAll { waiter in
                    guard failure != nil || waiter.target <= applied else { return false }
                    ready.append(waiter.continuation)
                    return true
                }
                return ready
            }
            for continuation in ready { continuation.resume(returning: failure) }
        }
    }

    /// The rows after `applied` were folded into the stored checkpoint (this
    /// node was behind by more than the rows kept after it): replaces this
    /// node's state with the checkpoint's. Calls of this node waiting in the
    /// folded rows are answered "ask again" (their outcome was not seen here).
    func restoreFoldedHistory(_ node: PostgresNode, after applied: Int64) async throws {
        guard let checkpoint = try await node.store.checkpoint(), checkpoint.throughPosition > applied else {
            throw ServeError("the journal rows after position \(applied) were folded, and no checkpoint past them is stored")
        }
        let file: ServerStateFile
        do { file = try CheckpointFormat.decode(checkpoint.state) } catch {
            throw ServeError("the checkpoint at position \(checkpoint.throughPosition) cannot be read back (\(error))")
        }
        try state.withLock { (state: inout State) throws in
            guard state.applied < checkpoint.throughPosition else { return }
            clock.set(checkpoint.time)
            node.appliedTime.store(checkpoint.time, ordering: .relaxed)
            do { try Self.restore(file, into: state.core) } catch {
                let failure = "the checkpoint at position \(checkpoint.throughPosition) cannot be restored (\(error))"
                state.storageFailure = failure
                throw ServeError(failure)
            }
            state.applied = checkpoint.throughPosition
            state.checkpointedThrough = checkpoint.throughPosition
            refreshSignIns(state.core.engine.users)
        }
        node.store.counters.historyRestores.add(1, ordering: .relaxed)
    }

    /// Applies journal rows in order (those already applied are skipped), each at
    /// ``JournalRow/appliedTime(after:)`` the row before it, delivering what is due after each; wakes the long-polls of
    /// devices whose inbox grew, and stores the checkpoints taken on the way.
    func apply(_ rows: [JournalRow], node: PostgresNode) throws {
        let every = Int64(max(1, options.checkpointEvery))
        let (wake, timer, checkpoints) = try state.withLock {
            (state: inout State) throws -> ([String], Milliseconds?, [(Int64, Milliseconds, ServerStateFile)]) in
            var wake: Set<String> = []
            var checkpoints: [(Int64, Milliseconds, ServerStateFile)] = []
            for row in rows where row.position == state.applied + 1 {
                let journaled: JournaledCall
                do { journaled = try JournaledCall.decode(row.call) } catch {
                    let failure = "journal row \(row.position) cannot be read (\(error))"
                    state.storageFailure = failure
                    throw ServeError(failure)
                }
                let time = row.appliedTime(after: node.appliedTime.load(ordering: .relaxed))
                node.appliedTime.store(time, ordering: .relaxed)
                clock.set(time)
                let call = journaled.call
                if call.path != Self.deliverTickPath {
                    var own: PreparedCall?
                    var request: UInt64?
                    if let origin = journaled.origin, origin.node == node.id, let prepared = state.ownCalls.removeValue(forKey: origin.request) {
                        own = prepared
                        request = origin.request
                    }
                    var dispatcher = APIDispatcher(core: state.core, now: time, baseURL: state.baseURL)
                    dispatcher.answering = request != nil
                    let prepared: PreparedCall
                    if let own { prepared = own } else {
                        do { prepared = try JournaledCallBody.decode(call) } catch {
                            let failure = "journal row \(row.position) cannot be read (\(error))"
                            state.storageFailure = failure
                            throw ServeError(failure)
                        }
                    }
                    let outcome = dispatcher.step(prepared)
                    if let request { state.ownOutcomes[request] = outcome }
                    if outcome.changedState, call.isServerCall || call.isServerAdmin { refreshSignIns(state.core.engine.users) }
                }
                if let next = state.core.push.nextDeliveryTime, next <= time {
                    wake.formUnion(state.core.push.deliverDue(now: time).map(\.deviceID))
                }
                state.applied = row.position
                if row.position % every == 0 {
                    checkpoints.append((row.position, time, Self.checkpointFile(state.core)))
                    state.checkpointedThrough = row.position
                }
            }
            var timer: Milliseconds?
            if let next = state.core.push.nextDeliveryTime, state.timerAt.map({ next < $0 }) ?? true {
                state.timerAt = next
                timer = next
            }
            return (wake.sorted(), timer, checkpoints)
        }
        courier.notify(wake)
        if let timer { scheduleTick(at: timer, node: node) }
        if let (position, time, file) = checkpoints.last {
            let store = node.store
            let keep = max(every, Int64(max(1, options.journalKeepRows)))
            Task.detached(priority: .background) {
                guard let data = try? CheckpointFormat.encode(file) else { return }
                let stored = (try? await store.storeCheckpoint(StoredCheckpoint(throughPosition: position, time: time, format: 2, state: data))) ?? false
                // The journal does not grow forever: rows well behind the stored checkpoint go
                // (a live node is rarely that far behind; one that is restores the checkpoint instead).
                if stored, position > keep { _ = try? await store.foldRows(through: position - keep) }
            }
        }
    }

    /// The server's own call that only moves the journal's time on, so every
    /// node delivers the notifications due by then.
    static let deliverTickPath = "/internal/deliver"

    /// When a coalescing window ends: appends a tick (unless a row came
    /// meanwhile that delivered everything due), so every node delivers then.
    private func scheduleTick(at time: Milliseconds, node: PostgresNode) {
        let delay = max(0, time - SystemClock().now())
        Task { [self] in
            try? await Task.sleep(for: .milliseconds(delay))
            let due = state.withLock { (state: inout State) -> Bool in
                if state.timerAt == time { state.timerAt = nil }
                guard !state.stopped, let next = state.core.push.nextDeliveryTime else { return false }
                return next <= SystemClock().now()
            }
            guard due else { return }
            let tick = JournaledCall(call: APICall(method: "POST", path: Self.deliverTickPath, isServerCall: true), origin: nil).encoded()
            if case .success(let place) = await node.appender.append(time: node.now(), call: tick) {
                try? await waitUntilApplied(place.position)
            }
        }
    }

    /// One task per node: catches up whenever the journal's tail moves (and
    /// wakes the long-polls of devices that got notifications); when the
    /// watching connection drops, watches again (with a growing pause) and catches up.
    func startWatching(_ node: PostgresNode) {
        let task = Task { [weak self] in
            var pause: Duration = .milliseconds(100)
            while !Task.isCancelled {
                do {
                    let watch = try await node.store.watchTail()
                    pause = .milliseconds(100)
                    for try await tail in watch {
                        guard let self else { return }
                        try await self.waitUntilApplied(tail)
                    }
                } catch {
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, .seconds(5))
                }
            }
        }
        node.watcher.withLock { $0 = task }
    }

    /// A clean stop of a node: takes no more calls and stops watching. Every
    /// acknowledged call is already committed in PostgreSQL; checkpoints are
    /// taken at fixed positions, not at a stop (see ``PostgresNode``).
    func stopOnJournal(_ node: PostgresNode) -> String {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return "already stopped" }
        node.watcher.withLock { $0?.cancel() }
        node.store.close()
        return "every acknowledged call is in \(node.store.url); this node: \(node.store.counters.summary)"
    }

    /// On a shared journal: applies every row committed before this call
    /// (what a read does first). Without one, returns at once.
    public func catchUp() async throws {
        guard let postgres else { return }
        try await waitUntilApplied(try await postgres.currentTail())
    }

    /// On a shared journal, a web auth token this node does not know may
    /// belong to a user another node added just now: catch up before refusing it.
    func catchUpForUnknownToken(_ token: String?) async {
        guard let postgres, let token, !token.isEmpty, !isAdminToken(token), user(withToken: token) == nil else { return }
        try? await waitUntilApplied(try await postgres.currentTail())
    }

    // MARK: Presence across nodes

    /// A poll opened on this node: its presence lease lasts until its
    /// deadline and the grace period after it (see ``PostgresJournalStore/openPoll(device:poll:until:)``).
    func openSharedPoll(_ deviceID: String, poll: String, timeout: Duration) async {
        guard let postgres else { return }
        let until = SystemClock().now() + Milliseconds(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000) + options.offlineAfter
        try? await postgres.store.openPoll(device: deviceID, poll: poll, until: until)
    }

    /// A poll ended on this node: its lease lasts the grace period, no longer.
    func endSharedPoll(_ deviceID: String, poll: String) async {
        guard let postgres else { return }
        try? await postgres.store.endPoll(device: deviceID, poll: poll, until: SystemClock().now() + options.offlineAfter)
    }

    /// Whether no poll of the device is open (or ended within the grace
    /// period) on any node. While one is, waits for its lease to run out and
    /// asks again (its node may be killed meanwhile), as long as this node
    /// still is where the device's last poll ended and the device is online.
    /// When the leases cannot be read: `false` (the device stays online until a later poll ends).
    func noSharedPollLive(_ deviceID: String) async -> Bool {
        guard let postgres else { return true }
        let lastEnd = state.withLock { $0.lastPollEnd[deviceID] }
        while true {
            let live: Int64?
            do { live = try await postgres.store.livePollsUntil(device: deviceID, now: SystemClock().now()) } catch { return false }
            guard let until = live else { return true }
            try? await Task.sleep(for: .milliseconds(max(1, until - SystemClock().now() + 1)))
            try? await waitUntilApplied(try await postgres.currentTail())
            let stillLast = state.withLock { state in
                !state.stopped && state.openPolls[deviceID] == nil && state.lastPollEnd[deviceID] == lastEnd && state.core.push.isOnline(deviceID) == true
            }
            guard stillLast else { return false }
        }
    }

    // MARK: Notifications written out, across nodes

    /// What claiming a notification for a poll came to.
    enum SharedClaim {
        case claimed
        /// A poll on another node is writing it out (or wrote it out, and its lease has not run out).
        case heldElsewhere
        /// The claim could not be asked for: the poll answers this.
        case failed(APIAnswer)
    }

    /// Claims a notification this node took for a poll in the shared
    /// delivery claims, so a poll of the same device on another node does
    /// not answer it too. The claim is a lease of ``ServeOptions/offlineAfter``:
    /// a node killed while writing the answer out leaves a claim that lapses,
    /// and a later poll on any node gets the notification. Not claimed: the
    /// notification goes back (this node marked it as being written out).
    func claimShared(_ id: String, deviceID: String, claimant: String, node: PostgresNode) async -> SharedClaim {
        let claimed: Bool
        do {
            claimed = try await node.store.claimDeliveries(
                device: deviceID, notificationIDs: [id], claimant: claimant, now: SystemClock().now(), leaseMilliseconds: options.offlineAfter
            ) == [id]
        } catch {
            releaseTaken(id, deviceID: deviceID)
            return .failed(.tryAgainLater("This server cannot reach the shared journal to hand out a notification (\(error)); poll again.", retryAfter: 1))
        }
        if !claimed { releaseTaken(id, deviceID: deviceID) }
        return claimed ? .claimed : .heldElsewhere
    }

    private func releaseTaken(_ id: String, deviceID: String) {
        state.withLock { state in
            state.inFlight[deviceID]?.remove(id)
            if state.inFlight[deviceID]?.isEmpty == true { state.inFlight[deviceID] = nil }
        }
    }

    /// A poll's answer was written out whole: its claim is marked written,
    /// so the device's next poll on any node acknowledges it. Not written
    /// (the client went): the claim goes, and the next poll on any node gets it.
    func finishShared(_ result: PollResult, claimant: String, written: Bool, node: PostgresNode) async {
        try? await node.store.finishDeliveries(device: result.deviceID, notificationIDs: result.notificationIDs, claimant: claimant, written: written)
    }

    /// The notifications polls on any node wrote out whole to the device (none without a shared journal).
    func writtenElsewhere(_ deviceID: String) async -> Set<String> {
        guard let postgres else { return [] }
        return Set((try? await postgres.store.writtenDeliveries(device: deviceID)) ?? [])
    }

    /// The acknowledged notifications' claims go (they are in the journal now).
    func forgetWritten(_ deviceID: String, _ ids: [String]) async {
        guard let postgres else { return }
        try? await postgres.store.dropDeliveries(device: deviceID, notificationIDs: ids)
    }

    /// ``perform(_:)`` on a shared journal, for synchronous callers off the cooperative pool.
    func performBlocking(_ call: APICall, node: PostgresNode) -> APIAnswer {
        let result = Mutex<APIAnswer?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let answer = await performOnJournal(call, node: node)
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .tryAgainLater("No answer.", retryAfter: 1)
    }
}
