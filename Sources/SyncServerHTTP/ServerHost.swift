import Foundation
import Synchronization
import SyncCore
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
    /// Journal rows after which the server writes a checkpoint.
    public var checkpointEvery: Int
    /// A device not polling for this long counts as offline: the push
    /// service then keeps only its latest notification.
    public var offlineAfter: Milliseconds
    /// The largest request body, in bytes.
    public var maxBodyBytes: Int

    public init(
        host: String = "127.0.0.1", port: Int = 8400, dataDirectory: URL? = ServeOptions.defaultDataDirectory, users: [String] = [],
        retention: Int? = nil, coalescingWindow: Milliseconds = 200, importFile: URL? = nil, seed: UInt64? = nil, quiet: Bool = false,
        checkpointEvery: Int = 20_000, offlineAfter: Milliseconds = 60_000, maxBodyBytes: Int = 2 * 1024 * 1024
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
        var openPolls: [String: Int] = [:]
        var lastPollEnd: [String: Milliseconds] = [:]
        var timerAt: Milliseconds?
        var baseURL: String
    }

    private let state: Mutex<State>
    let clock: CallClock
    let journal: Journal?
    let options: ServeOptions
    let courier = Courier()
    /// What start-up did, for the banner: rows replayed, whether a checkpoint was restored.
    public let startupReport: String

    public init(options: ServeOptions) throws {
        self.options = options
        let clock = CallClock()
        self.clock = clock
        var report: [String] = []
        let journal: Journal?
        var meta: [String: String] = [:]
        if let directory = options.dataDirectory {
            do {
                journal = try Journal(directory: directory)
                meta = try journal?.meta() ?? [:]
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
        if let journal {
            do {
                var through: Int64 = 0
                if let checkpoint = try journal.checkpoint() {
                    let file = try WireJSON.decode(ServerStateFile.self, from: checkpoint.state)
                    try Self.restore(file, into: core)
                    through = checkpoint.throughSeq
                    report.append("restored the checkpoint")
                }
                let dispatcherCore = core
                let replayed = try journal.replay(after: through) { time, call in
                    clock.set(time)
                    _ = APIDispatcher(core: dispatcherCore, now: time, baseURL: "").answer(call)
                }
                if replayed > 0 { report.append("replayed \(replayed) journal row\(replayed == 1 ? "" : "s")") }
                if madeWith != wanted {
                    // Settings live in the engine's configuration: carry the state over exactly.
                    let file = Self.checkpointFile(core)
                    core = Self.makeCore(seed: seed, settings: wanted, clock: clock)
                    try Self.restore(file, into: core)
                    try journal.writeCheckpoint(try WireJSON.encode(file), time: clock.now())
                    report.append("now with \(wanted)")
                } else if replayed >= 1000 {
                    try journal.writeCheckpoint(try WireJSON.encode(Self.checkpointFile(core)), time: clock.now())
                }
                try journal.setMeta([
                    "seed": String(seed), "retention": wanted.retention.map(String.init) ?? "none",
                    "coalescingWindow": String(wanted.coalescingWindow), "format": "1",
                ])
            } catch let error as CloudError {
                throw ServeError("The data in \(journal.path) cannot be read back: \(error.reason)")
            } catch {
                throw ServeError("The data in \(journal.path) cannot be read back: \(error)")
            }
        }
        startupReport = report.isEmpty ? "new state" : report.joined(separator: ", ")
        state = Mutex(State(core: core, baseURL: "http://\(options.host):\(options.port)"))

        for user in options.effectiveUsers where account(user) == nil {
            let answer = perform(APICall(method: "POST", path: "/internal/addUser", body: Data(#"{"name":\#(Self.jsonString(user))}"#.utf8)))
            guard answer.status == 200 else {
                throw ServeError("Cannot add user '\(user)': \(answer.wireError?.reason ?? "status \(answer.status)")")
            }
        }
        if let file = options.importFile {
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                throw ServeError("Cannot read \(file.path): \(error.localizedDescription)")
            }
            let answer = perform(APICall(method: "POST", path: "/internal/import", body: data))
            guard answer.status == 200 else {
                // The reason speaks of a request body; here the body is the file.
                let reason = (answer.wireError?.reason ?? "status \(answer.status)").replacingOccurrences(of: "The request body", with: "The file")
                throw ServeError("Cannot import \(file.path) (a state file from `syncscope client export`): \(reason)")
            }
        }
        try writeUsersFile()
    }

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

    static func restore(_ file: ServerStateFile, into core: ServerCore) throws(CloudError) {
        try core.engine.importState(file, keepingHistory: true)
        try core.push.importState(file.push, restoringDevices: true)
    }

    static func jsonString(_ text: String) -> String {
        (try? WireJSON.string(text)) ?? "\"\""
    }

    // MARK: Calls

    /// The user a web auth token belongs to.
    public func user(withToken token: String) -> String? {
        state.withLock { $0.core.engine.user(withWebAuthToken: token)?.name }
    }

    func account(_ name: String) -> UserAccount? {
        state.withLock { $0.core.engine.account(named: name) }
    }

    public var users: [UserAccount] { state.withLock { $0.core.engine.users } }

    func setBaseURL(_ url: String) { state.withLock { $0.baseURL = url } }

    /// Applies one call, commits it to the journal if it changed anything,
    /// and wakes the long-polls of devices that got notifications.
    public func perform(_ call: APICall) -> APIAnswer {
        let (answer, wake, timer) = state.withLock { (state: inout State) -> (APIAnswer, [String], Milliseconds?) in
            let time = clock.tick()
            let answer = apply(call, at: time, &state)
            let (wake, timer) = deliver(at: time, &state)
            return (answer, wake, timer)
        }
        courier.notify(wake)
        if let timer { scheduleDelivery(at: timer) }
        if answer.changedState, call.path.hasSuffix("/import") || call.path.hasSuffix("/reset") {
            restoreConfiguredUsers()
            try? writeUsersFile()
        }
        return answer
    }

    private func apply(_ call: APICall, at time: Milliseconds, _ state: inout State) -> APIAnswer {
        if let failure = state.storageFailure {
            return .error(CloudError(.internalError, "The server could not write its journal (\(failure)); it answers nothing until restarted."), status: 503)
        }
        var answer = APIDispatcher(core: state.core, now: time, baseURL: state.baseURL).answer(call)
        guard answer.changedState, let journal else { return answer }
        do {
            try journal.append(call, time: time)
            state.rowsSinceCheckpoint += 1
            if state.rowsSinceCheckpoint >= options.checkpointEvery {
                try journal.writeCheckpoint(try WireJSON.encode(Self.checkpointFile(state.core)), time: time)
                state.rowsSinceCheckpoint = 0
            }
        } catch {
            state.storageFailure = "\(error)"
            answer = .error(CloudError(.internalError, "The change could not be stored (\(error)); the server stops taking changes until restarted."), status: 503)
        }
        return answer
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
            _ = perform(APICall(method: "POST", path: "/internal/addUser", body: Data(#"{"name":\#(Self.jsonString(user))}"#.utf8)))
        }
    }

    /// `users.json` in the data folder: `{"users": [{"name", "webAuthToken"}]}`.
    func writeUsersFile() throws {
        guard let directory = options.dataDirectory else { return }
        struct File: Encodable {
            struct User: Encodable { var name: String; var webAuthToken: String }
            var users: [User]
        }
        let file = File(users: users.map { File.User(name: $0.name, webAuthToken: $0.webAuthToken) })
        try WireJSON.encode(file, prettyPrinted: true).write(to: directory.appendingPathComponent("users.json"), options: .atomic)
    }

    /// Writes a checkpoint (at shutdown), so the next start has nothing to replay.
    public func checkpointNow() {
        guard let journal else { return }
        state.withLock { state in
            guard state.storageFailure == nil, state.rowsSinceCheckpoint > 0 else { return }
            if (try? journal.writeCheckpoint(try WireJSON.encode(Self.checkpointFile(state.core)), time: clock.tick())) != nil {
                state.rowsSinceCheckpoint = 0
            }
        }
    }

    // MARK: Long-poll

    /// Whether a device is registered for push.
    func isRegistered(_ deviceID: String) -> Bool {
        state.withLock { $0.core.push.isOnline(deviceID) != nil }
    }

    /// Waits until notifications are there for the device, or the time is up.
    func poll(deviceID: String, timeout: Duration) async -> APIAnswer {
        pollStarted(deviceID)
        let deadline = ContinuousClock.now + timeout
        let receive = APICall(method: "POST", path: "/internal/receive", body: Data(#"{"deviceID":\#(Self.jsonString(deviceID))}"#.utf8))
        var answer: APIAnswer
        while true {
            let ticket = courier.ticket(for: deviceID)
            answer = perform(receive)
            let empty = answer.status != 200 || (try? WireJSON.decode(WireNotificationsResponse.self, from: answer.body))?.notifications.isEmpty != false
            if !empty || answer.status != 200 || ContinuousClock.now >= deadline || Task.isCancelled {
                courier.discard(ticket)
                break
            }
            await ticket.wait(until: deadline)
            courier.discard(ticket)
        }
        pollEnded(deviceID)
        return answer
    }

    private func pollStarted(_ deviceID: String) {
        let offline = state.withLock { state in
            state.openPolls[deviceID, default: 0] += 1
            return state.core.push.isOnline(deviceID) == false
        }
        if offline {
            _ = perform(APICall(method: "POST", path: "/internal/online", body: Data(#"{"deviceID":\#(Self.jsonString(deviceID)),"online":true}"#.utf8)))
        }
    }

    private func pollEnded(_ deviceID: String) {
        state.withLock { state in
            state.openPolls[deviceID, default: 1] -= 1
            if state.openPolls[deviceID] == 0 { state.openPolls[deviceID] = nil }
            state.lastPollEnd[deviceID] = SystemClock().now()
        }
        let grace = options.offlineAfter
        Task { [self] in
            try? await Task.sleep(for: .milliseconds(grace))
            let goOffline = state.withLock { state in
                state.openPolls[deviceID] == nil && state.core.push.isOnline(deviceID) == true
                    && (state.lastPollEnd[deviceID] ?? 0) + grace <= SystemClock().now()
            }
            if goOffline {
                _ = perform(APICall(method: "POST", path: "/internal/online", body: Data(#"{"deviceID":\#(Self.jsonString(deviceID)),"online":false}"#.utf8)))
            }
        }
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
