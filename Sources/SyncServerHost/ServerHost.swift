import Crypto
import Foundation
import Synchronization
import SyncCore
import SyncWire
import SyncServer

/// The network server's state: the engine and the push layer under one
/// lock, the store that keeps every call (``ServerStore``), and the
/// long-polls waiting for notifications.
///
/// Rules:
/// - Only the engine step is serialized (the state lock); decoding a call
///   and encoding its answer happen outside it.
/// - The store decides each call's place in the total order and makes it
///   durable; the host applies rows in that order, in one place
///   (``apply(_:)``), whether they come from start-up's replay, another
///   node, or this node's own calls on a shared journal.
/// - An async caller never blocks a thread: waiting for the store suspends.
public final class ServerHost: Sendable {
    package struct State {
        package var core: ServerCore
        /// Set when the store could not be written: the server stops changing anything.
        package var storageFailure: String?
        package var rowsSinceCheckpoint = 0
        /// The records (and tombstones) the latest checkpoint held: the next
        /// one waits for at least half as many rows (see ``ServeOptions/checkpointEvery``).
        package var recordsAtCheckpoint = 0
        package var openPolls: [String: Int] = [:]
        package var lastPollEnd: [String: Milliseconds] = [:]
        package var timerAt: Milliseconds?
        package var baseURL: String
        /// Notifications in an answer being written to a long-poll's connection, per device.
        package var inFlight: [String: Set<String>] = [:]
        /// Notifications written out whole to a long-poll's connection and not
        /// yet acknowledged, per device: the device's next poll acknowledges them
        /// (unless it names the last one it got with `lastNotificationID`).
        package var written: [String: Set<String>] = [:]
        package var stopped = false
        /// The last row the latest checkpoint holds: a clean stop of a data
        /// folder writes one when rows came after it, so the next start replays nothing.
        package var checkpointedThrough: Int64 = 0
        /// The last position applied through ``ServerHost/apply(_:)``.
        package var applied: Int64 = 0
        /// The time that row was applied at (the next one applies at ``StoreRow/appliedTime(after:)`` it).
        package var appliedTime: Milliseconds = 0
        /// On a shared journal: this node's calls waiting for their rows, by request number, and their steps' outcomes.
        package var ownCalls: [UInt64: PreparedCall] = [:]
        package var ownOutcomes: [UInt64: StepOutcome] = [:]
    }

    package let state: Mutex<State>
    package let clock: CallClock
    /// Keeps every call, in one total order.
    package let store: any ServerStore
    /// Web auth token → user name, for signing callers in without the state lock.
    private let signIns = Mutex<[String: String]>([:])
    /// Whether a fault plan was ever installed (read without the state lock;
    /// until then no call is matched against one).
    package let faultsInstalled = Atomic<Bool>(false)
    package let options: ServeOptions
    package let courier = Courier()
    /// The server-to-server keys this node takes (read without the state lock).
    package let serverKeys = ServerKeyRing()
    /// What the server did, for watchers (`serve --event-feed N`; 0: off).
    package let events: ServerEventFeed
    /// Times this node restored the checkpoint because the rows it needed were folded.
    package let historyRestores = Atomic<Int>(0)
    /// Callers waiting for rows to be applied; one of them at a time fetches and applies.
    package let catchUpGate = Mutex<CatchUpGate>(CatchUpGate())
    /// What start-up did, for the banner: rows replayed, whether a checkpoint was restored.
    public var startupReport: String { startup.withLock { $0 } }
    private let startup = Mutex<String>("new state")
    /// Journal rows `--recover` dropped (damaged, and every row after the first damaged one).
    public var droppedCalls: Int { dropped.load(ordering: .relaxed) }
    package let dropped = Atomic<Int>(0)
    /// The server admin credential: `Authorization: Bearer` with it makes the
    /// whole-server admin calls (reset, import, export). Printed at start-up
    /// and kept by the store (`admin.json` in a data folder, readable by its owner only).
    public let adminToken: String

    package init(options: ServeOptions, store: any ServerStore, clock: CallClock, core: sending ServerCore, checkpoint: StoreCheckpoint?, adminToken: String) {
        self.options = options
        self.store = store
        self.clock = clock
        self.adminToken = adminToken
        events = ServerEventFeed(capacity: options.eventFeedSize)
        let through = checkpoint?.through ?? 0
        state = Mutex(State(
            core: core, baseURL: "http://\(options.host):\(options.port)", checkpointedThrough: through, applied: through,
            appliedTime: checkpoint?.time ?? 0))
        refreshSignIns()
    }

    // MARK: Start-up

    /// The one start-up path, whatever the store: opens it (agreeing on the
    /// seed and settings), restores its newest checkpoint, replays the rows
    /// after it, adds the configured users that are missing, imports
    /// `--import`, then serves. A problem comes back as a ``ServeError`` naming the store.
    package static func start(options: ServeOptions, on store: any ServerStore) async throws -> ServerHost {
        let opening = try await store.open(options: options)
        let clock = CallClock()
        let core = makeCore(seed: opening.seed, settings: opening.settings, clock: clock)
        if let checkpoint = opening.checkpoint {
            do { try restore(try CheckpointFormat.decode(checkpoint.state), into: core) } catch {
                await store.abandon()
                throw ServeError("The checkpoint in \(store.name) cannot be read back (\(error)); restore it from a copy.")
            }
            clock.set(checkpoint.time)
        }
        let host = ServerHost(options: options, store: store, clock: clock, core: core, checkpoint: opening.checkpoint, adminToken: opening.adminToken)
        do {
            let replayed = try await store.replay(after: opening.checkpoint?.through ?? 0, into: host)
            let report = opening.report + replayed
            host.startup.withLock { $0 = report.isEmpty ? "new state" : report.joined(separator: ", ") }
            for user in options.effectiveUsers where host.account(user) == nil {
                let answer = await host.perform(.server("addUser", DispatcherInternal.AddUser(name: user)))
                guard answer.status == 200 || host.account(user) != nil else {
                    throw ServeError("Cannot add user '\(user)': \(answer.wireError?.reason ?? "status \(answer.status)")")
                }
            }
            for (keyID, pem) in options.serverKeys.sorted(by: { $0.key < $1.key }) {
                let key: P256.Signing.PublicKey
                do { key = try ServerKeyRing.publicKey(keyID: keyID, pem: pem) } catch { throw ServeError("--server-key \(keyID): \(error.reason)") }
                let user = ServerKeyRing.userName(ofKey: keyID)
                if host.account(user) == nil {
                    let answer = await host.perform(.server("addUser", DispatcherInternal.AddUser(name: user)))
                    guard answer.status == 200 || host.account(user) != nil else {
                        throw ServeError("Cannot add user '\(user)' for --server-key \(keyID): \(answer.wireError?.reason ?? "status \(answer.status)")")
                    }
                }
                host.serverKeys.add(keyID, key)
            }
            if let file = options.importFile {
                let data: Data
                do { data = try Data(contentsOf: file) } catch {
                    throw ServeError("Cannot read \(file.path): \(error.localizedDescription)")
                }
                var call = APICall.server("import", WireEmpty())
                call.body = data
                let answer = await host.perform(call)
                guard answer.status == 200 else {
                    // The reason speaks of a request body; here the body is the file.
                    let reason = (answer.wireError?.reason ?? "status \(answer.status)").replacingOccurrences(of: "The request body", with: "The file")
                    throw ServeError("Cannot import \(file.path) (a state file from `syncscope client export`): \(reason)")
                }
            }
            if let file = options.schemaFile { try await host.importSchemaFile(file, container: options.schemaContainer) }
            try store.usersChanged(host.users)
        } catch {
            await store.abandon()
            if let error = error as? ServeError { throw error }
            throw ServeError("Cannot start on \(store.name): \(error)")
        }
        store.serve(host)
        return host
    }

    package func setStartupReport(_ report: String) { startup.withLock { $0 = report } }

    // MARK: Calls

    /// The user a web auth token belongs to (read without the state lock).
    public func user(withToken token: String) -> String? {
        signIns.withLock { $0[token] }
    }

    /// Reads the users' web auth tokens again (after a call that may have changed them).
    private func refreshSignIns() {
        let users = state.withLock { $0.core.engine.users }
        refreshSignIns(users)
    }

    package func refreshSignIns(_ users: [UserAccount]) {
        let map = Dictionary(users.map { ($0.webAuthToken, $0.name) }, uniquingKeysWith: { first, _ in first })
        signIns.withLock { $0 = map }
    }

    /// Whether `token` is the server admin credential (compared in constant time).
    public func isAdminToken(_ token: String) -> Bool {
        let a = Array(token.utf8)
        let b = Array(adminToken.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// How many long-polls of a device are open now.
    public func openPolls(of deviceID: String) -> Int { state.withLock { $0.openPolls[deviceID] ?? 0 } }

    /// The user a device's push channel belongs to.
    package func owner(ofDevice deviceID: String) -> String? {
        state.withLock { $0.core.push.owner(ofDevice: deviceID) }
    }

    package func account(_ name: String) -> UserAccount? {
        state.withLock { $0.core.engine.account(named: name) }
    }

    public var users: [UserAccount] { state.withLock { $0.core.engine.users } }

    package func setBaseURL(_ url: String) { state.withLock { $0.baseURL = url } }

    /// Applies one call in its place in the store's order, answers once it
    /// is durable, and wakes the long-polls of devices that got
    /// notifications. Decoding and encoding happen outside the state lock;
    /// waiting for the store holds no thread.
    public func perform(_ call: APICall) async -> APIAnswer {
        var call = call
        let isImport = call.path.hasSuffix("/import") && (call.isServerAdmin || call.isServerCall)
        if isImport {
            // Users another node added keep their tokens too.
            try? await catchUp()
            call.body = withServerTokens(call.body)
        }
        let prepared = APIDispatcher.prepare(call)
        if case .refused(let answer) = prepared.route { return answer }
        let done = await store.perform(prepared, on: self)
        var answer = done.outcome.answer()
        if let failure = done.failure {
            answer = done.outcome.changedState
                ? .error(CloudError(.internalError, "The change could not be stored (\(failure)); the server stops taking changes until restarted."), status: 503)
                : .error(CloudError(.internalError, "The server could not write its journal (\(failure)); it answers nothing until restarted."), status: 503)
        }
        courier.notify(done.wake)
        if let timer = done.timer { scheduleDelivery(at: timer) }
        if done.failure == nil, answer.changedState, isImport || (call.isServerAdmin && call.path.hasSuffix("/reset")) {
            for user in options.effectiveUsers where account(user) == nil {
                _ = await perform(.server("addUser", DispatcherInternal.AddUser(name: user)))
            }
            try? store.usersChanged(users)
        }
        return answer
    }

    /// A state file to import with the users' web auth tokens the server's:
    /// a user the server has keeps their token, a new user gets a new one.
    /// Tokens in the file count for nothing (exports carry none).
    package func withServerTokens(_ body: Data) -> Data {
        guard var file = try? WireJSON.decode(ServerStateFile.self, from: body) else { return body }
        let current = Dictionary(users.map { ($0.name, $0.webAuthToken) }, uniquingKeysWith: { first, _ in first })
        for index in file.users.indices {
            file.users[index].webAuthToken = current[file.users[index].name] ?? Self.randomSecret()
        }
        return (try? WireJSON.encode(file)) ?? body
    }

    /// The engine step here and now, the only part under the state lock:
    /// applies the call, lets the store keep its row (so its order is the
    /// step order, where the store orders by the step), and, when
    /// `delivering`, delivers the notifications due. A store whose order is
    /// a journal's positions steps only reads here (`delivering` false:
    /// deliveries happen at positions).
    package func step(_ prepared: PreparedCall, delivering: Bool) -> StoreOutcome {
        var pushed: [PushEvent] = []
        let done = state.withLock { (state: inout State) -> StoreOutcome in
            let time = delivering ? clock.tick() : max(clock.now(), SystemClock().now())
            let outcome = stepHere(prepared, at: time, &state)
            let ticket = store.keep(prepared, changed: outcome.outcome.changedState, at: time, &state)
            var done = outcome
            done.ticket = ticket
            if delivering { (done.wake, done.timer) = deliver(at: time, &state) }
            pushed = state.core.push.drainEvents()
            return done
        }
        if !pushed.isEmpty { events.record(push: pushed) }
        return done
    }

    private func stepHere(_ prepared: PreparedCall, at time: Milliseconds, _ state: inout State) -> StoreOutcome {
        if let failure = state.storageFailure {
            return StoreOutcome(outcome: StepOutcome(
                .error(CloudError(.internalError, "The server could not write its journal (\(failure)); it answers nothing until restarted."), status: 503)))
        }
        if state.stopped {
            return StoreOutcome(outcome: StepOutcome(.tryAgainLater("The server is stopping; try again when it is back.", retryAfter: 5)))
        }
        let outcome = APIDispatcher(core: state.core, now: time, baseURL: state.baseURL, serverKeys: serverKeys).step(prepared)
        if state.core.faults != nil { faultsInstalled.store(true, ordering: .relaxed) }
        if outcome.changedState, prepared.call.isServerCall || prepared.call.isServerAdmin { refreshSignIns(state.core.engine.users) }
        return StoreOutcome(outcome: outcome)
    }

    /// The store failed: the server stops changing anything (and says why).
    package func failStorage(_ reason: String) {
        state.withLock { state in
            if state.storageFailure == nil { state.storageFailure = reason }
        }
    }

    /// Whether the server stopped, or its store failed: the sentence to refuse a change with.
    package var refusal: String? {
        state.withLock { state in state.stopped ? "The server is stopping; try again when it is back." : state.storageFailure }
    }

    /// Marks the server stopped; returns whether it was running (the first stop).
    package func markStopped() -> Bool {
        state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
    }

    // MARK: Applying rows

    /// Applies rows of the total order, in order (rows already applied, or
    /// out of turn, are skipped: catching up applies them), each at
    /// ``StoreRow/appliedTime(after:)`` the row before it, delivering what is
    /// due after each; wakes the long-polls of devices whose inbox grew, and
    /// hands the store the checkpoints taken on the way. Start-up's replay,
    /// catching up with other nodes and this node's own appended calls all
    /// come through here. Throws (and the server stops changing anything) when a row cannot be read.
    package func apply(_ rows: [StoreRow]) throws {
        var pushed: [PushEvent] = []
        let (wake, timer, checkpoint) = try state.withLock {
            (state: inout State) throws -> ([String], Milliseconds?, (Int64, Milliseconds, ServerStateFile)?) in
            var wake: Set<String> = []
            var checkpoint: (Int64, Milliseconds, ServerStateFile)?
            for row in rows where row.position == state.applied + 1 {
                let time = row.appliedTime(after: state.appliedTime)
                state.appliedTime = time
                clock.set(time)
                let call = row.call
                if call.path != Self.deliverTickPath {
                    var own: PreparedCall?
                    var request: UInt64?
                    if let origin = row.origin, store.isOwn(origin), let prepared = state.ownCalls.removeValue(forKey: origin.request) {
                        own = prepared
                        request = origin.request
                    }
                    var dispatcher = APIDispatcher(core: state.core, now: time, baseURL: state.baseURL, serverKeys: serverKeys)
                    // The answers of rows no caller waits for are discarded: never worded or encoded.
                    dispatcher.answering = request != nil
                    let prepared: PreparedCall
                    if let own { prepared = own } else {
                        do { prepared = try JournaledCallBody.decode(call) } catch {
                            let failure = "row \(row.position) in \(store.name) cannot be read (\(error))"
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
                if store.checkpointDue(at: row.position) {
                    checkpoint = (row.position, time, Self.checkpointFile(state.core))
                    state.checkpointedThrough = row.position
                }
            }
            var timer: Milliseconds?
            if let next = state.core.push.nextDeliveryTime, state.timerAt.map({ next < $0 }) ?? true {
                state.timerAt = next
                timer = next
            }
            pushed = state.core.push.drainEvents()
            events.advance(to: state.applied)
            return (wake.sorted(), timer, checkpoint)
        }
        if !pushed.isEmpty { events.record(push: pushed) }
        courier.notify(wake)
        if let timer { scheduleDelivery(at: timer) }
        if let (position, time, file) = checkpoint { store.storeCheckpoint(through: position, time: time, file: file) }
    }

    /// The server's own call that only moves a shared journal's time on, so
    /// every node delivers the notifications due by then.
    package static let deliverTickPath = "/internal/deliver"

    /// The last position applied.
    package var applied: Int64 { state.withLock { $0.applied } }

    /// Applies every row committed before this call (what a read on a shared
    /// journal does first). Where the host's state is the whole journal, returns at once.
    public func catchUp() async throws {
        try await waitUntilApplied(try await store.tail())
    }

    // MARK: Deliveries

    /// Delivers what is due; returns the devices to wake and when to look again.
    package func deliver(at time: Milliseconds, _ state: inout State) -> ([String], Milliseconds?) {
        var wake: [String] = []
        if let next = state.core.push.nextDeliveryTime, next <= time {
            wake = Array(Set(state.core.push.deliverDue(now: time).map(\.deviceID))).sorted()
        }
        var timer: Milliseconds?
        if let next = state.core.push.nextDeliveryTime, state.timerAt.map({ next < $0 }) ?? true {
            state.timerAt = next
            timer = next
        }
        return (wake, timer)
    }

    /// When notifications come due: the store delivers them (here and now,
    /// or at a position of a shared journal).
    package func scheduleDelivery(at time: Milliseconds) {
        let delay = max(0, time - SystemClock().now())
        Task { [self] in
            try? await Task.sleep(for: .milliseconds(delay))
            await store.deliver(dueAt: time, on: self)
        }
    }

    /// Delivers what is due now, on this node alone (a store whose order is the step order).
    package func deliverNow(timerAt time: Milliseconds) {
        var pushed: [PushEvent] = []
        let (wake, timer) = state.withLock { (state: inout State) -> ([String], Milliseconds?) in
            if state.timerAt == time { state.timerAt = nil }
            defer { pushed = state.core.push.drainEvents() }
            return deliver(at: clock.tick(), &state)
        }
        if !pushed.isEmpty { events.record(push: pushed) }
        courier.notify(wake)
        if let timer { scheduleDelivery(at: timer) }
    }

    /// Whether notifications are due now (the timer set for `time` fired):
    /// on a shared journal, the node then appends a tick.
    package func deliveryDue(timerAt time: Milliseconds) -> Bool {
        state.withLock { (state: inout State) -> Bool in
            if state.timerAt == time { state.timerAt = nil }
            guard !state.stopped, let next = state.core.push.nextDeliveryTime else { return false }
            return next <= SystemClock().now()
        }
    }

    // MARK: Checkpoints and stopping

    /// The last row the latest checkpoint holds, the rows kept since, and
    /// the records that checkpoint held (what decides when the next one is taken).
    package var checkpointProgress: (through: Int64, rowsSince: Int, recordsHeld: Int) {
        state.withLock { ($0.checkpointedThrough, $0.rowsSinceCheckpoint, $0.recordsAtCheckpoint) }
    }

    /// Writes a checkpoint, so the next start has nothing to replay (where the store keeps one).
    public func checkpointNow() async {
        await store.checkpointNow(self)
    }

    /// A clean stop: takes no more changes and lets the store keep what it
    /// must (a data folder writes a checkpoint and folds its WAL into the
    /// database file). Returns a sentence saying what it did.
    @discardableResult
    public func stop() async -> String {
        await store.stop(self)
    }

    /// The users file a data folder keeps (``UsersFile``), written now.
    package func writeUsersFile() throws {
        try store.usersChanged(users)
    }
}
