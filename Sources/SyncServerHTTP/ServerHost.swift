import Foundation
import GRDB
import Synchronization
import SyncCore
import SyncWire
import SyncPostgres
import SyncServer

/// How `syncscope serve` runs.
public struct ServeOptions: Sendable {
    public var host: String
    public var port: Int
    /// `nil`: keep nothing (`--in-memory`).
    public var dataDirectory: URL?
    /// Users to have; without any, `alice` and `bob`.
    public var users: [String]
    public var retention: Int?
    public var coalescingWindow: Milliseconds
    /// A state file to import at start-up (`--import`).
    public var importFile: URL?
    /// The seed of a new data folder; `nil`: a random one. An existing data
    /// folder keeps the seed it was made with.
    public var seed: UInt64?
    /// Requests are logged unless `quiet`.
    public var quiet: Bool
    /// Journal rows after which the server writes a checkpoint, at the
    /// least. A checkpoint costs what the state holds, so the server waits for
    /// as many rows as half the records (and tombstones) its latest checkpoint
    /// held when that is more: the checkpoints' cost per row stays the same
    /// however large the state grows, and a restart replays at most that many
    /// rows after reading the checkpoint (more only while the previous
    /// checkpoint is still being written: one is queued at a time).
    public var checkpointEvery: Int
    /// A device not polling for this long counts as offline: the push
    /// service then keeps only its latest notification.
    public var offlineAfter: Milliseconds
    /// The largest request body, in bytes.
    public var maxBodyBytes: Int
    /// `serve --recover`: drop a damaged journal tail (saying how many calls
    /// that loses) instead of refusing to start.
    public var recover: Bool
    /// Seconds a client has from the first byte of a request to the end of its headers.
    public var headerTimeout: Double
    /// Seconds a client has from the end of the headers to the end of the body.
    public var bodyTimeout: Double
    /// Seconds a kept-alive connection may sit idle between requests.
    public var idleTimeout: Double
    /// Open connections at most; one more is answered 503 with `retryAfter` and closed.
    public var maxConnections: Int
    /// Open long-polls per device at most; one more is answered 503 with `retryAfter`.
    public var maxPollsPerDevice: Int
    /// A journal shared in PostgreSQL (`--store postgres://…`) instead of a
    /// data folder: start the server with ``ServerHost/start(options:store:)``.
    public var store: PostgresStoreURL?
    /// On a shared journal: rows kept behind the stored checkpoint, at least
    /// (at least one checkpoint interval is kept too); older rows are deleted,
    /// and a node that far behind restores the checkpoint instead.
    public var journalKeepRows: Int = 10_000

    public init(
        host: String = "127.0.0.1", port: Int = 8400, dataDirectory: URL? = ServeOptions.defaultDataDirectory, users: [String] = [],
        retention: Int? = nil, coalescingWindow: Milliseconds = 200, importFile: URL? = nil, seed: UInt64? = nil, quiet: Bool = false,
        checkpointEvery: Int = 20_000, offlineAfter: Milliseconds = 60_000, maxBodyBytes: Int = 2 * 1024 * 1024, recover: Bool = false,
        headerTimeout: Double = 10, bodyTimeout: Double = 30, idleTimeout: Double = 75, maxConnections: Int = ServeOptions.defaultMaxConnections,
        maxPollsPerDevice: Int = 2, store: PostgresStoreURL? = nil
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.users = users
        self.retention = retention
        self.coalescingWindow = coalescingWindow
        self.importFile = importFile
        self.seed = seed
        self.quiet = quiet
        self.checkpointEvery = checkpointEvery
        self.offlineAfter = offlineAfter
        self.maxBodyBytes = maxBodyBytes
        self.recover = recover
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.maxPollsPerDevice = maxPollsPerDevice
        self.store = store
    }

    /// 1,000 connections, or fewer when the process may open fewer files
    /// (macOS allows 256 by default): 64 descriptors stay for the database and the listener.
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        #if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        guard status == 0 else { return 1000 }
        let soft = Int(clamping: min(limit.rlim_cur, 1_000_000))
        return max(8, min(1000, soft - 64))
    }

    /// `$XDG_DATA_HOME/syncscope`, else `~/.local/share/syncscope`.
    public static var defaultDataDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("syncscope")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/syncscope")
    }

    var effectiveUsers: [String] { users.isEmpty ? ["alice", "bob"] : users }
}

/// Why the server cannot start.
public struct ServeError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The clock the engine reads: the time of the call being applied, which
/// is the wall clock (never going backwards) live, and the recorded time in replay.
final class CallClock: SyncClock {
    private let current = Mutex<Milliseconds>(0)

    func now() -> Milliseconds { current.withLock { $0 } }

    func set(_ time: Milliseconds) { current.withLock { $0 = time } }

    /// Moves to the wall clock's now, never backwards; returns the time.
    func tick() -> Milliseconds {
        let wall = SystemClock().now()
        return current.withLock { value in
            value = max(value, wall)
            return value
        }
    }
}

/// The network server's state: the engine and the push layer under one
/// lock, the journal, and the long-polls waiting for notifications.
public final class ServerHost: Sendable {
    struct State {
        var core: ServerCore
        /// Set when the journal could not be written: the server stops changing anything.
        var storageFailure: String?
        var rowsSinceCheckpoint = 0
        /// The records (and tombstones) the latest checkpoint held: the next
        /// one waits for at least half as many rows (see ``ServeOptions/checkpointEvery``).
        var recordsAtCheckpoint = 0
        var openPolls: [String: Int] = [:]
        var lastPollEnd: [String: Milliseconds] = [:]
        var timerAt: Milliseconds?
        var baseURL: String
        /// Notifications in an answer being written to a long-poll's connection, per device.
        var inFlight: [String: Set<String>] = [:]
        /// Notifications written out whole to a long-poll's connection and not
        /// yet acknowledged, per device: the device's next poll acknowledges them
        /// (unless it names the last one it got with `lastNotificationID`).
        var written: [String: Set<String>] = [:]
        var stopped = false
        /// The last journal row the latest checkpoint holds: a clean stop
        /// writes one when rows came after it, so the next start replays nothing.
        var checkpointedThrough: Int64 = 0
        /// On a shared journal: the last position applied.
        var applied: Int64 = 0
        /// On a shared journal: this node's calls waiting for their rows, by request number, and their steps' outcomes.
        var ownCalls: [UInt64: PreparedCall] = [:]
        var ownOutcomes: [UInt64: StepOutcome] = [:]
    }

    let state: Mutex<State>
    let clock: CallClock
    let journal: Journal?
    /// Commits journal rows off the state lock, several per transaction.
    let committer: GroupCommitter?
    /// The shared journal in PostgreSQL, when the server runs on one (then `journal` and `committer` are `nil`).
    let postgres: PostgresNode?
    /// Web auth token → user name, for signing callers in without the state lock.
    private let signIns = Mutex<[String: String]>([:])
    /// Whether a fault plan was ever installed (read without the state lock;
    /// until then no call is matched against one).
    let faultsInstalled = Atomic<Bool>(false)
    let options: ServeOptions
    let courier = Courier()
    /// The connection cap, time limits and each connection's presence (the HTTP layer's).
    let connections: ConnectionLimits
    /// What start-up did, for the banner: rows replayed, whether a checkpoint was restored.
    public var startupReport: String { startup.withLock { $0 } }
    private let startup: Mutex<String>
    /// Journal rows `--recover` dropped (damaged, and every row after the first damaged one).
    public let droppedCalls: Int
    /// The server admin credential: `Authorization: Bearer` with it makes the
    /// whole-server admin calls (reset, import, export). Printed at start-up
    /// and kept in `admin.json` in the data folder (readable by its owner only).
    public let adminToken: String

    public init(options: ServeOptions) throws {
        self.options = options
        connections = ConnectionLimits(options: options)
        let clock = CallClock()
        self.clock = clock
        var report: [String] = []
        let journal: Journal?
        var meta: [String: String] = [:]
        if let directory = options.dataDirectory {
            do {
                journal = try Journal(directory: directory, recover: options.recover)
                meta = try journal?.meta() ?? [:]
                try DataFolderCheck.checkUsed(directory, meta: meta, recover: options.recover)
            } catch let error as DataFolderLock.InUse {
                throw ServeError(
                    "Another syncscope serve\(error.pid.map { " (process \($0))" } ?? "") is using the data folder \(error.path). Stop it, or pass another --data folder, or --in-memory.")
            } catch let error as ServeError {
                throw error
            } catch {
                throw ServeError(
                    "Cannot open the data folder \(directory.path): \(Self.explain(error, at: directory)) Pass another --data folder, or --in-memory.")
            }
        } else {
            journal = nil
        }
        self.journal = journal
        var generator = SystemRandomNumberGenerator()
        let seed = meta["seed"].flatMap { UInt64($0) } ?? options.seed ?? UInt64.random(in: 1...UInt64.max, using: &generator)
        let storedRetention = meta["retention"].map { Int($0) ?? -1 }.flatMap { $0 < 0 ? nil : $0 }
        let storedWindow = meta["coalescingWindow"].flatMap { Milliseconds($0) }
        let madeWith = Settings(
            retention: meta["seed"] == nil ? options.retention : storedRetention,
            coalescingWindow: storedWindow ?? options.coalescingWindow)
        let wanted = Settings(retention: options.retention, coalescingWindow: options.coalescingWindow)

        var core = Self.makeCore(seed: seed, settings: madeWith, clock: clock)
        var dropped = 0
        var lastSeq: Int64 = 0
        var checkpointedThrough: Int64 = 0
        var checkpointAfterStart = false
        if let journal {
            do {
                var through: Int64 = 0
                if let checkpoint = try journal.checkpoint() {
                    let file = try CheckpointFormat.decode(checkpoint.state)
                    try Self.restore(file, into: core)
                    through = checkpoint.throughSeq
                    report.append("restored the checkpoint")
                }
                // The records the rows will save, by zone, counted up front: each
                // zone's tables are sized once instead of regrowing (and
                // rehashing every record) again and again as the replay fills them.
                core.engine.expectRecords(try Self.expectedRecords(in: journal, after: through))
                defer { core.engine.expectRecords([:]) }
                // One pass: each row's checksum is checked as it is replayed; a
                // damaged row stops the replay there (the rows before it stay applied).
                let dispatcherCore = core
                let (replayed, damaged) = try journal.replay(after: through) { time, call in
                    clock.set(time)
                    // The answers are discarded: the replay never words or encodes one.
                    var dispatcher = APIDispatcher(core: dispatcherCore, now: time, baseURL: "")
                    dispatcher.answering = false
                    _ = dispatcher.step(try JournaledCallBody.decode(call))
                }
                if let damaged {
                    let calls = damaged.rowsFromIt == 1 ? "1 call" : "\(damaged.rowsFromIt) calls"
                    guard options.recover else {
                        throw ServeError(
                            "Journal row \(damaged.seq) in \(journal.path) is damaged (\(damaged.why)); it and the rows after it hold the last \(calls) this server acknowledged. Start with --recover to drop them (those \(calls) are lost), or restore the data folder from a copy.")
                    }
                    try journal.dropRows(from: damaged.seq)
                    dropped = damaged.rowsFromIt
                    report.append("--recover dropped \(calls) from the damaged journal row \(damaged.seq) on (\(damaged.why)): \(calls) lost")
                }
                if replayed > 0 { report.append("replayed \(replayed) journal row\(replayed == 1 ? "" : "s")") }
                if madeWith != wanted {
                    // Settings live in the engine's configuration: carry the state over exactly.
                    let file = Self.checkpointFile(core)
                    core = Self.makeCore(seed: seed, settings: wanted, clock: clock)
                    try Self.restore(file, into: core)
                    try journal.writeCheckpoint(try CheckpointFormat.encode(file), time: clock.now())
                    report.append("now with \(wanted)")
                } else if dropped > 0 {
                    try journal.writeCheckpoint(try CheckpointFormat.encode(Self.checkpointFile(core)), time: clock.now())
                } else if replayed >= 1000 {
                    checkpointAfterStart = true
                }
                lastSeq = try journal.lastSeq()
                checkpointedThrough = try journal.checkpointThroughSeq()
                try journal.setMeta([
                    "seed": String(seed), "retention": wanted.retention.map(String.init) ?? "none",
                    "coalescingWindow": String(wanted.coalescingWindow), "format": "2",
                ])
            } catch let error as CloudError {
                throw ServeError("The data in \(journal.path) cannot be read back: \(error.reason)")
            } catch let error as ServeError {
                throw error
            } catch {
                throw ServeError("The data in \(journal.path) cannot be read back: \(error)")
            }
        }
        droppedCalls = dropped
        startup = Mutex(report.isEmpty ? "new state" : report.joined(separator: ", "))
        postgres = nil
        state = Mutex(State(core: core, baseURL: "http://\(options.host):\(options.port)", checkpointedThrough: checkpointedThrough))
        adminToken = try Self.loadOrMakeAdminToken(options.dataDirectory)
        committer = journal.map { GroupCommitter(journal: $0, lastSeq: lastSeq) }
        refreshSignIns()
        if checkpointAfterStart, let committer {
            // Many rows replayed: a checkpoint of the state they built, so the
            // next start does not replay them again. It is taken now and
            // encoded on the committer's checkpoint thread and committed in
            // order with the rows after it, while the server already answers; a kill -9
            // before it is written only means the next start replays them again.
            state.withLock { (state: inout State) in
                _ = queueCheckpoint(committer, time: clock.now(), &state)
            }
        }

        for user in options.effectiveUsers where account(user) == nil {
            let answer = perform(.server("addUser", DispatcherInternal.AddUser(name: user)))
            guard answer.status == 200 else {
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
            let answer = perform(call)
            guard answer.status == 200 else {
                // The reason speaks of a request body; here the body is the file.
                let reason = (answer.wireError?.reason ?? "status \(answer.status)").replacingOccurrences(of: "The request body", with: "The file")
                throw ServeError("Cannot import \(file.path) (a state file from `syncscope client export`): \(reason)")
            }
        }
        try writeUsersFile()
    }

    /// A node on a journal shared in PostgreSQL (``start(options:store:)`` makes one).
    init(options: ServeOptions, clock: CallClock, core: sending ServerCore, postgres: PostgresNode, applied: Int64, adminToken: String) {
        self.options = options
        connections = ConnectionLimits(options: options)
        self.clock = clock
        journal = nil
        committer = nil
        self.postgres = postgres
        droppedCalls = 0
        startup = Mutex("new state")
        self.adminToken = adminToken
        state = Mutex(State(core: core, baseURL: "http://\(options.host):\(options.port)", checkpointedThrough: applied, applied: applied))
        refreshSignIns()
    }

    func setStartupReport(_ report: String) { startup.withLock { $0 = report } }

    /// A file-system error as a sentence, not a dump of its domain and user info.
    static func explain(_ error: any Error, at directory: URL) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "it is a file, not a folder."
        }
        let text = error is CocoaError ? (error as NSError).localizedDescription : "\(error)"
        return text.hasSuffix(".") ? text : text + "."
    }

    struct Settings: Equatable, CustomStringConvertible {
        var retention: Int?
        var coalescingWindow: Milliseconds
        var description: String {
            "retention \(retention.map { "\($0) changes" } ?? "unlimited"), coalescing window \(coalescingWindow) ms"
        }
    }

    static func makeCore(seed: UInt64, settings: Settings, clock: CallClock) -> ServerCore {
        ServerCore(
            engine: ServerEngine(configuration: ServerConfiguration(retention: settings.retention, seed: seed), clock: clock),
            push: PushEngine(configuration: PushConfiguration(coalescingWindow: settings.coalescingWindow, deliveryLatency: 0), seed: seed))
    }

    static func checkpointFile(_ core: ServerCore) -> ServerStateFile {
        var file = core.engine.checkpointState()
        file.push = core.push.exportState(includingDevices: true, reseeding: true)
        return file
    }

    /// A checkpoint of the state as it is now, whose bytes are made later
    /// (on the committer's checkpoint thread, off the state lock). Taking it costs what the
    /// zones and users cost, not the records: the engine's snapshot shares its
    /// collections copy-on-write.
    static func checkpointLater(_ core: ServerCore) -> (records: Int, encode: @Sendable () throws -> Data) {
        let snapshot = core.engine.checkpointSnapshot()
        let push = core.push.exportState(includingDevices: true, reseeding: true)
        return (snapshot.recordCount, {
            var file = snapshot.file()
            file.push = push
            return try CheckpointFormat.encode(file)
        })
    }

    /// The records the `records/modify` rows after `seq` save, by zone (read
    /// from each binary row's first bytes). A count too high (rows that change
    /// the same records again) only costs memory, so a row claiming more
    /// operations than a call may carry counts for nothing, and a zone's count
    /// stops at ``maxExpectedRecords``.
    static func expectedRecords(in journal: Journal, after seq: Int64) throws -> [RecordZoneID: Int] {
        try journal.queue.read { db in
            var counts: [RecordZoneID: Int] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, user, substr(body, 1, 1024) AS head FROM journal WHERE seq > ? AND path LIKE '%/records/modify'",
                arguments: [seq])
            while let row = try rows.next() {
                guard let head = row["head"] as Data?, let (zone, count) = JournaledCallBody.zoneAndOperationCount(head),
                      count <= APIDispatcher.maxOperations
                else { continue }
                let path: String = row["path"]
                var zoneID = zone
                if path.contains("/public/") {
                    zoneID = RecordZoneID(zoneName: zone.zoneName, ownerName: RecordZoneID.publicOwnerName)
                } else if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName {
                    zoneID.ownerName = row["user"] ?? ""
                }
                counts[zoneID, default: 0] += count
            }
            return counts.mapValues { min($0, maxExpectedRecords) }
        }
    }

    /// The most records a replay makes room for in one zone up front.
    static let maxExpectedRecords = 2_000_000

    static func restore(_ file: ServerStateFile, into core: ServerCore) throws(CloudError) {
        try core.engine.importState(file, keepingHistory: true)
        try core.push.importState(file.push, restoringDevices: true)
    }

    static func jsonString(_ text: String) -> String {
        (try? WireJSON.string(text)) ?? "\"\""
    }

    /// 32 random bytes as hex, from the system's secure generator.
    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static let adminFileName = "admin.json"

    /// The admin token of `admin.json` in the data folder, or a new one written there (mode 0600).
    static func loadOrMakeAdminToken(_ directory: URL?) throws -> String {
        struct File: Codable { var adminToken: String }
        guard let directory else { return "admin-" + randomSecret() }
        let url = directory.appendingPathComponent(adminFileName)
        if let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data), file.adminToken.count >= 32 {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            return file.adminToken
        }
        let token = "admin-" + randomSecret()
        try writePrivately(try WireJSON.encode(File(adminToken: token), prettyPrinted: true), to: url)
        return token
    }

    /// Writes a file only its owner can read (mode 0600), atomically.
    static func writePrivately(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ServeError("Cannot write \(url.path).")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ServeError("Cannot write \(url.path): \(reason).")
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

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

    func refreshSignIns(_ users: [UserAccount]) {
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

    /// How many HTTP connections are open now.
    public var openConnections: Int { connections.openConnections }

    /// How many long-polls of a device are open now.
    public func openPolls(of deviceID: String) -> Int { state.withLock { $0.openPolls[deviceID] ?? 0 } }

    /// The user a device's push channel belongs to.
    func owner(ofDevice deviceID: String) -> String? {
        state.withLock { $0.core.push.owner(ofDevice: deviceID) }
    }

    func account(_ name: String) -> UserAccount? {
        state.withLock { $0.core.engine.account(named: name) }
    }

    public var users: [UserAccount] { state.withLock { $0.core.engine.users } }

    func setBaseURL(_ url: String) { state.withLock { $0.baseURL = url } }

    /// Applies one call, commits it to the journal if it changed anything,
    /// and wakes the long-polls of devices that got notifications. Blocks
    /// until the journal row is committed; the HTTP layer uses `performAsync(_:)`.
    public func perform(_ call: APICall) -> APIAnswer {
        if let postgres { return performBlocking(call, node: postgres) }
        let (call, isImport) = callToApply(call)
        let stepped = step(APIDispatcher.prepare(call))
        let answer = stepped.outcome.answer()
        let failure = stepped.ticket.flatMap { committer?.waitUntilDurableBlocking($0) }
        return finish(call, isImport: isImport, stepped, answer, failure: failure)
    }

    /// ``perform(_:)`` for async callers: decoding and encoding happen outside
    /// the state lock, and the call waits for its journal row without
    /// holding a thread (the rows of calls arriving meanwhile join the next transaction).
    func performAsync(_ call: APICall) async -> APIAnswer {
        if let postgres { return await performOnJournal(call, node: postgres) }
        let (call, isImport) = callToApply(call)
        let stepped = step(APIDispatcher.prepare(call))
        let answer = stepped.outcome.answer()
        var failure: String?
        if let ticket = stepped.ticket, let committer { failure = await committer.waitUntilDurable(ticket) }
        return finish(call, isImport: isImport, stepped, answer, failure: failure)
    }

    private func callToApply(_ call: APICall) -> (APICall, isImport: Bool) {
        var call = call
        let isImport = call.path.hasSuffix("/import") && (call.isServerAdmin || call.isServerCall)
        if isImport { call.body = withServerTokens(call.body) }
        return (call, isImport)
    }

    /// What the engine step left to do after the lock.
    private struct Stepped: Sendable {
        var outcome: StepOutcome
        /// The journal entry to wait for before answering: the call's own row, or
        /// the last row queued before the step (the answer may show its change).
        /// Rows commit in order, so the rows before it are durable then too.
        var ticket: Int64?
        var wake: [String]
        var timer: Milliseconds?
    }

    /// The engine step, the only part under the state lock: applies the call,
    /// queues its journal row (so the journal's order is the step order), delivers due notifications.
    private func step(_ prepared: PreparedCall) -> Stepped {
        state.withLock { (state: inout State) -> Stepped in
            let time = clock.tick()
            let outcome = apply(prepared, at: time, &state)
            let (wake, timer) = deliver(at: time, &state)
            let ticket = committer.map(\.lastRowTicket)
            return Stepped(outcome: outcome, ticket: ticket == 0 ? nil : ticket, wake: wake, timer: timer)
        }
    }

    private func finish(_ call: APICall, isImport: Bool, _ stepped: Stepped, _ answer: APIAnswer, failure: String?) -> APIAnswer {
        var answer = answer
        if let failure {
            answer = stepped.outcome.changedState
                ? .error(CloudError(.internalError, "The change could not be stored (\(failure)); the server stops taking changes until restarted."), status: 503)
                : .error(CloudError(.internalError, "The server could not write its journal (\(failure)); it answers nothing until restarted."), status: 503)
        }
        courier.notify(stepped.wake)
        if let timer = stepped.timer { scheduleDelivery(at: timer) }
        if failure == nil, answer.changedState, isImport || (call.isServerAdmin && call.path.hasSuffix("/reset")) {
            restoreConfiguredUsers()
            try? writeUsersFile()
        }
        return answer
    }

    /// A state file to import with the users' web auth tokens the server's:
    /// a user the server has keeps their token, a new user gets a new one.
    /// Tokens in the file count for nothing (exports carry none).
    func withServerTokens(_ body: Data) -> Data {
        guard var file = try? WireJSON.decode(ServerStateFile.self, from: body) else { return body }
        let current = Dictionary(users.map { ($0.name, $0.webAuthToken) }, uniquingKeysWith: { first, _ in first })
        for index in file.users.indices {
            file.users[index].webAuthToken = current[file.users[index].name] ?? Self.randomSecret()
        }
        return (try? WireJSON.encode(file)) ?? body
    }

    private func apply(_ prepared: PreparedCall, at time: Milliseconds, _ state: inout State) -> StepOutcome {
        if state.storageFailure == nil, let failure = committer?.failure { state.storageFailure = failure }
        if let failure = state.storageFailure {
            return StepOutcome(.error(CloudError(.internalError, "The server could not write its journal (\(failure)); it answers nothing until restarted."), status: 503))
        }
        if state.stopped {
            return StepOutcome(.tryAgainLater("The server is stopping; try again when it is back.", retryAfter: 5))
        }
        let outcome = APIDispatcher(core: state.core, now: time, baseURL: state.baseURL).step(prepared)
        if state.core.faults != nil { faultsInstalled.store(true, ordering: .relaxed) }
        guard outcome.changedState else { return outcome }
        let call = prepared.call
        if call.isServerCall || call.isServerAdmin { refreshSignIns(state.core.engine.users) }
        guard let committer else { return outcome }
        _ = committer.enqueueRow(time: time, call: prepared)
        state.rowsSinceCheckpoint += 1
        // One periodic checkpoint at a time: a second one queued behind it would hold another snapshot for nothing.
        if state.rowsSinceCheckpoint >= max(options.checkpointEvery, state.recordsAtCheckpoint / 2), !committer.checkpointUnderWay {
            _ = queueCheckpoint(committer, time: time, &state)
        }
        return outcome
    }

    /// Queues a checkpoint of the state as it is now (taken under the lock;
    /// encoded on the committer's checkpoint thread and committed after the
    /// rows it holds) and starts counting rows towards the next one.
    private func queueCheckpoint(_ committer: GroupCommitter, time: Milliseconds, _ state: inout State) -> GroupCommitter.CheckpointTicket {
        let (records, encode) = Self.checkpointLater(state.core)
        let (ticket, through) = committer.enqueueCheckpoint(time: time, encode: encode)
        state.checkpointedThrough = through
        state.rowsSinceCheckpoint = 0
        state.recordsAtCheckpoint = records
        return ticket
    }

    /// Delivers what is due; returns the devices to wake and when to look again.
    private func deliver(at time: Milliseconds, _ state: inout State) -> ([String], Milliseconds?) {
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

    private func scheduleDelivery(at time: Milliseconds) {
        let delay = max(0, time - SystemClock().now())
        Task { [self] in
            try? await Task.sleep(for: .milliseconds(delay))
            let (wake, timer) = state.withLock { (state: inout State) -> ([String], Milliseconds?) in
                if state.timerAt == time { state.timerAt = nil }
                return deliver(at: clock.tick(), &state)
            }
            courier.notify(wake)
            if let timer { scheduleDelivery(at: timer) }
        }
    }

    private func restoreConfiguredUsers() {
        for user in options.effectiveUsers where account(user) == nil {
            _ = perform(.server("addUser", DispatcherInternal.AddUser(name: user)))
        }
    }

    /// ``UsersFile`` (`users.json`) in the data folder, readable by its owner only.
    func writeUsersFile() throws {
        guard let directory = options.dataDirectory else { return }
        try UsersFile(users: users.map { UsersFile.User(name: $0.name, webAuthToken: $0.webAuthToken) }).write(to: directory)
    }

    /// The last journal row the latest checkpoint holds, the rows queued
    /// since, and the records that checkpoint held (what decides when the next one is taken).
    var checkpointProgress: (through: Int64, rowsSince: Int, recordsHeld: Int) {
        state.withLock { ($0.checkpointedThrough, $0.rowsSinceCheckpoint, $0.recordsAtCheckpoint) }
    }

    /// Writes a checkpoint, so the next start has nothing to replay.
    public func checkpointNow() {
        guard postgres == nil, let committer else { return }
        let ticket = state.withLock { (state: inout State) -> GroupCommitter.CheckpointTicket? in
            guard state.storageFailure == nil, committer.lastSeq > state.checkpointedThrough else { return nil }
            return queueCheckpoint(committer, time: clock.tick(), &state)
        }
        if let ticket { _ = committer.waitUntilDurableBlocking(ticket) }
    }

    /// A clean stop: takes no more changes, writes a checkpoint (whenever a
    /// journal row came after the last one, so the next start replays
    /// nothing), folds the WAL into `syncscope.sqlite` and closes it (the
    /// database file alone then holds everything). Returns a sentence saying what it did.
    @discardableResult
    public func stop() -> String {
        if let postgres { return stopOnJournal(postgres) }
        guard let journal, let committer else {
            state.withLock { $0.stopped = true }
            return "nothing kept (in memory)"
        }
        let first = state.withLock { (state: inout State) -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            if state.storageFailure == nil, committer.failure == nil, committer.lastSeq > state.checkpointedThrough {
                _ = queueCheckpoint(committer, time: clock.tick(), &state)
            }
            return true
        }
        guard first else { return "already stopped" }
        if let failure = committer.finish() {
            return "the state could not be folded into \(journal.path) (\(failure)); the journal keeps every acknowledged call"
        }
        do {
            try journal.close()
            return "state saved in \(journal.path)"
        } catch {
            return "the state could not be folded into \(journal.path) (\(error)); the journal keeps every acknowledged call"
        }
    }

    deinit {
        committer?.finish()
    }

    // MARK: Long-poll

    /// What a long-poll hands a device: its answer, and the notification in
    /// it, which stays the device's until it acknowledges it.
    struct PollResult: Sendable {
        var answer: APIAnswer
        var deviceID: String
        var notificationIDs: [String]
        /// On a shared journal: the poll's claim on its notification (``PostgresJournalStore/claimDeliveries(device:notificationIDs:claimant:now:leaseMilliseconds:)``).
        var claimant: String? = nil
    }

    /// Waits until a notification is there for the device, or the time is
    /// up, or the client is gone (`presence`). First acknowledges what the
    /// device certainly has: when the poll names `lastNotificationID`, that
    /// one and those before it that earlier polls wrote out whole (an empty
    /// name: nothing), else everything the previous polls wrote out whole.
    ///
    /// Each answer carries **one** notification in Apple's push form
    /// (``WirePushPayload``: `{"aps", "ck"}`, ours under `syncscope`), the
    /// oldest waiting; the next poll gets the next. A poll whose time is up
    /// with nothing waiting answers 200 with an empty body, as Apple's web
    /// courier does. Notifications leave the server only when acknowledged;
    /// call ``finishPoll(_:written:)`` when the answer is written (or not).
    func poll(
        deviceID: String, user: String, timeout: Duration, lastNotificationID: String?, presence: ClientPresence?
    ) async -> PollResult {
        func result(_ answer: APIAnswer) -> PollResult { PollResult(answer: answer, deviceID: deviceID, notificationIDs: []) }
        if let postgres {
            // A channel made on another node, and what other nodes delivered, are here once this node caught up.
            try? await waitUntilApplied(try await postgres.currentTail())
        }
        let admitted = state.withLock { state -> APIAnswer? in
            guard state.core.push.owner(ofDevice: deviceID) == user else {
                return .notFound(
                    "You have no push channel '\(deviceID)' in this server: make one with tokens/create (signed in as yourself), then poll the webcourierURL it gives.")
            }
            guard state.openPolls[deviceID, default: 0] < options.maxPollsPerDevice else {
                return .tryAgainLater(
                    "Device '\(deviceID)' already has \(options.maxPollsPerDevice) long-poll\(options.maxPollsPerDevice == 1 ? "" : "s") open, the most one device may have; let one finish first.",
                    retryAfter: 1)
            }
            state.openPolls[deviceID, default: 0] += 1
            return nil
        }
        if let admitted { return result(admitted) }
        // On a shared journal: this poll's claims and presence lease, and the notifications polls on other nodes hold.
        let claimant = postgres.map { "\($0.id)/\($0.nextRequest())" }
        if let claimant { await openSharedPoll(deviceID, poll: claimant, timeout: timeout) }
        await pollStarted(deviceID)
        defer { pollEnded(deviceID, poll: claimant) }
        await acknowledge(deviceID: deviceID, lastNotificationID: lastNotificationID)

        let deadline = ContinuousClock.now + timeout
        var heldElsewhere: Set<String> = []
        while true {
            let ticket = courier.ticket(for: deviceID)
            presence?.onGone { ticket.signal() }
            if presence?.isGone == true {
                courier.discard(ticket)
                return result(.badRequest("The client closed the connection."))
            }
            let taken = take(deviceID, user: user, skipping: heldElsewhere)
            if let taken, let postgres, let claimant {
                switch await claimShared(taken.ck.nid, deviceID: deviceID, claimant: claimant, node: postgres) {
                case .claimed:
                    break
                case .heldElsewhere:
                    courier.discard(ticket)
                    heldElsewhere.insert(taken.ck.nid)
                    continue
                case .failed(let answer):
                    courier.discard(ticket)
                    return result(answer)
                }
            }
            if taken != nil || ContinuousClock.now >= deadline || Task.isCancelled {
                courier.discard(ticket)
                guard let taken else { return result(APIAnswer(body: Data())) }
                let body = (try? WireJSON.encode(taken)) ?? Data()
                return PollResult(answer: APIAnswer(body: body), deviceID: deviceID, notificationIDs: [taken.ck.nid], claimant: claimant)
            }
            await ticket.wait(until: deadline)
            courier.discard(ticket)
        }
    }

    /// The answer of a poll was written out whole (`written`), or not: then
    /// its notification goes back to waiting for the device's next poll.
    func finishPoll(_ result: PollResult, written: Bool) {
        guard !result.notificationIDs.isEmpty else { return }
        state.withLock { state in
            state.inFlight[result.deviceID]?.subtract(result.notificationIDs)
            if state.inFlight[result.deviceID]?.isEmpty == true { state.inFlight[result.deviceID] = nil }
            if written { state.written[result.deviceID, default: []].formUnion(result.notificationIDs) }
        }
        if !written { courier.notify([result.deviceID]) }
        if let postgres, let claimant = result.claimant {
            Task { await finishShared(result, claimant: claimant, written: written, node: postgres) }
        }
    }

    /// The oldest delivered notification of a device that no other poll is
    /// writing out, marked as being written, in Apple's push form; `nil` when none waits.
    private func take(_ deviceID: String, user: String, skipping: Set<String> = []) -> WirePushPayload? {
        let (taken, wake, timer) = state.withLock { (state: inout State) -> (WirePushPayload?, [String], Milliseconds?) in
            // On a shared journal deliveries happen only at journal positions.
            let (wake, timer) = postgres == nil ? deliver(at: clock.tick(), &state) : ([], nil)
            let busy = (state.inFlight[deviceID] ?? []).union(skipping)
            let inbox = (try? state.core.push.unacknowledgedNotifications(for: deviceID)) ?? []
            guard let next = inbox.first(where: { !busy.contains($0.notificationID) }) else { return (nil, wake, timer) }
            let id = next.notificationID
            state.inFlight[deviceID, default: []].insert(id)
            state.written[deviceID]?.remove(id)
            // The device's owner is the subscription's owner: push channels and subscriptions are per user.
            let payload = WirePushPayload(
                next, ownerRecordName: user, queuedAt: state.core.push.queuedAt(ofNotification: id, for: deviceID))
            return (payload, wake, timer)
        }
        courier.notify(wake.filter { $0 != deviceID })
        if let timer { scheduleDelivery(at: timer) }
        return taken
    }

    /// Acknowledges what the device certainly has (see ``poll(deviceID:user:timeout:lastNotificationID:presence:)``).
    /// A notification before `lastNotificationID` whose answer was never
    /// written whole (it went back to waiting) is not acknowledged: the
    /// device never had it.
    private func acknowledge(deviceID: String, lastNotificationID: String?) async {
        // On a shared journal, what polls on other nodes wrote out whole counts too.
        let elsewhere = await writtenElsewhere(deviceID)
        let ids = state.withLock { state -> [String] in
            var ids: Set<String>
            let written = (state.written[deviceID] ?? []).union(elsewhere)
            if let last = lastNotificationID {
                ids = []
                let inbox = (try? state.core.push.unacknowledgedNotifications(for: deviceID)) ?? []
                if !last.isEmpty, let index = inbox.firstIndex(where: { $0.notificationID == last }) {
                    ids = Set(inbox[..<index].map(\.notificationID).filter(written.contains))
                    ids.insert(last)
                }
            } else {
                ids = written
            }
            state.written[deviceID]?.subtract(ids)
            if state.written[deviceID]?.isEmpty == true { state.written[deviceID] = nil }
            return ids.sorted()
        }
        guard !ids.isEmpty else { return }
        let answer = await performAsync(.server("acknowledge", DispatcherInternal.Acknowledge(deviceID: deviceID, notificationIDs: ids)))
        if answer.status == 200 { await forgetWritten(deviceID, ids) }
    }

    private func pollStarted(_ deviceID: String) async {
        let offline = state.withLock { state in state.core.push.isOnline(deviceID) == false }
        if offline {
            _ = await performAsync(.server("online", DispatcherInternal.DeviceOnline(deviceID: deviceID, online: true)))
        }
    }

    private func pollEnded(_ deviceID: String, poll: String? = nil) {
        state.withLock { state in
            state.openPolls[deviceID, default: 1] -= 1
            if state.openPolls[deviceID] == 0 { state.openPolls[deviceID] = nil }
            state.lastPollEnd[deviceID] = SystemClock().now()
        }
        let grace = options.offlineAfter
        Task { [self] in
            if let poll { await endSharedPoll(deviceID, poll: poll) }
            try? await Task.sleep(for: .milliseconds(grace))
            var goOffline = state.withLock { state in
                state.openPolls[deviceID] == nil && state.core.push.isOnline(deviceID) == true
                    && (state.lastPollEnd[deviceID] ?? 0) + grace <= SystemClock().now()
            }
            // On a shared journal: not while the device polls another node.
            if goOffline, poll != nil { goOffline = await noSharedPollLive(deviceID) }
            if goOffline {
                _ = await performAsync(.server("online", DispatcherInternal.DeviceOnline(deviceID: deviceID, online: false)))
            }
        }
    }
}

/// Whether the client of one connection is still there: the HTTP layer
/// marks it gone when the client closes its side or the connection drops,
/// and a waiting long-poll hears of it at once.
public final class ClientPresence: Sendable {
    private struct State {
        var gone = false
        var callbacks: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    public init() {}

    public var isGone: Bool { state.withLock { $0.gone } }

    /// Runs `callback` when the client goes (at once if it has gone); keeps only the latest.
    func onGone(_ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.gone { return true }
            state.callbacks = [callback]
            return false
        }
        if now { callback() }
    }

    func markGone() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.gone else { return [] }
            state.gone = true
            defer { state.callbacks = [] }
            return state.callbacks
        }
        for callback in callbacks { callback() }
    }
}

/// One-shot wake-ups for long-polls, per device.
final class Courier: Sendable {
    private let tickets = Mutex<[String: [ObjectIdentifier: WakeTicket]]>([:])

    func ticket(for deviceID: String) -> WakeTicket {
        let ticket = WakeTicket(deviceID: deviceID)
        tickets.withLock { $0[deviceID, default: [:]][ObjectIdentifier(ticket)] = ticket }
        return ticket
    }

    func discard(_ ticket: WakeTicket) {
        tickets.withLock { all in
            all[ticket.deviceID]?[ObjectIdentifier(ticket)] = nil
            if all[ticket.deviceID]?.isEmpty == true { all[ticket.deviceID] = nil }
        }
    }

    func notify(_ deviceIDs: [String]) {
        guard !deviceIDs.isEmpty else { return }
        let woken = tickets.withLock { all in deviceIDs.flatMap { all[$0].map { Array($0.values) } ?? [] } }
        for ticket in woken { ticket.signal() }
    }
}

/// Wakes one waiting long-poll once: on a delivery, at its deadline, or when its request is cancelled.
final class WakeTicket: Sendable {
    let deviceID: String
    private struct State {
        var signaled = false
        var continuation: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    init(deviceID: String) { self.deviceID = deviceID }

    func signal() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.signaled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }

    func wait(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                signal()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.signaled { return true }
                        state.continuation = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                signal()
            }
            group.cancelAll()
        }
    }
}
