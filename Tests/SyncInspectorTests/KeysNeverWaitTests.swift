import Synchronization
import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// A door that stays shut until a test opens it; whoever waits at it is
/// suspended (no thread blocks, no sleep).
final class Gate: Sendable {
    private struct Inside {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
    }
    private let inside = Mutex(Inside())

    /// How many waits began (waiting now or let through since).
    var arrivals: Int { inside.withLock { $0.arrivals } }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = inside.withLock { inside -> Bool in
                inside.arrivals += 1
                if inside.isOpen { return true }
                inside.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = inside.withLock { inside in
            inside.isOpen = true
            defer { inside.waiters = [] }
            return inside.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A server whose every read stalls at a gate, as a server that does not
/// answer (a dead `syncscope serve` with a client retrying) would.
struct StallingObserver: ServerObserver {
    let base: any ServerObserver
    let gate: Gate

    var source: String { base.source }
    var seesServerInternals: Bool { base.seesServerInternals }
    func zoneSummaries(user: String, environment: ContainerEnvironment) async throws -> [ServerZoneSummary] {
        await gate.wait()
        return try await base.zoneSummaries(user: user, environment: environment)
    }
    func removedZones(user: String, environment: ContainerEnvironment) async throws -> [ServerRemovedZone] {
        try await base.removedZones(user: user, environment: environment)
    }
    func publicZoneSummary(environment: ContainerEnvironment) async throws -> ServerZoneSummary {
        try await base.publicZoneSummary(environment: environment)
    }
    func pendingChangeCount(
        since token: ServerChangeToken, zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Int? {
        try await base.pendingChangeCount(since: token, zoneID: zoneID, scope: scope, user: user, environment: environment)
    }
    func records(in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment) async throws -> [Record] {
        try await base.records(in: zoneID, scope: scope, user: user, environment: environment)
    }
    func validate(
        _ token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> CloudError? {
        try await base.validate(token, zoneID: zoneID, scope: scope, user: user, environment: environment)
    }
    func rewind(
        from token: ServerChangeToken, zoneID: RecordZoneID?, scope: DatabaseScope, user: String, environment: ContainerEnvironment,
        resultsLimit: Int
    ) async throws -> Result<TokenRewind, CloudError> {
        try await base.rewind(from: token, zoneID: zoneID, scope: scope, user: user, environment: environment, resultsLimit: resultsLimit)
    }
    func describe(_ token: ServerChangeToken) async -> String { await base.describe(token) }
    func pendingNotifications(forDevice deviceID: String) async -> [PendingNotification] {
        await base.pendingNotifications(forDevice: deviceID)
    }
    func databaseChanged(
        since token: ServerChangeToken, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> Bool {
        try await base.databaseChanged(since: token, scope: scope, user: user, environment: environment)
    }
    func position(of token: ServerChangeToken) async -> Int64? { await base.position(of: token) }
    func faultRules() async -> [String] { await base.faultRules() }
    func pushFaultMarks(forDevice deviceID: String) async -> [PushFaultMark] { await base.pushFaultMarks(forDevice: deviceID) }
}

/// A terminal whose keys come from a function of what the loop did so far,
/// called on the loop's thread each time the loop waits for a key.
final class ProbeBackend: TerminalBackend {
    let inner: TestBackend
    var size: Size { inner.size }
    var screen: CellBuffer { inner.screen }
    var drawCount: Int { inner.drawCount }
    var reads = 0
    /// The timeout of every wait for a key, in order.
    var timeouts: [Int] = []
    var nextKey: (ProbeBackend) -> KeyEvent? = { _ in .character("q") }

    init(size: Size) { inner = TestBackend(size: size) }

    func draw(_ buffer: CellBuffer) throws(TerminalError) { try inner.draw(buffer) }
    func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        reads += 1
        timeouts.append(timeoutMs)
        // A bound on the loop's turns, not a time: a loop that never gets there fails instead of hanging.
        guard reads < 100_000 else { throw TerminalError(.scriptEnded, "The effect never finished.") }
        return nextKey(self)
    }
    func invalidate() { inner.invalidate() }
}

/// Keys never wait for the server: while a read stalls, keys change the
/// state and new frames are drawn; when it answers, its result arrives as an
/// event and shows.
@Suite("Keys never wait for the network")
struct KeysNeverWaitTests {
    @Test func whileAReadStallsKeysMoveAndDrawAndTheAnswerShowsWhenItComes() async throws {
        let inspector = try await makeInspector()
        let gate = Gate()
        inspector.observer = StallingObserver(base: inspector.simulation.serverObserver, gate: gate)
        inspector.runsEffectsConcurrently = true
        let backend = ProbeBackend(size: Size(width: 80, height: 24))

        enum Phase { case reachTokens, stalledHelp, helpShown, released, done }
        var phase = Phase.reachTokens
        var framesBeforeHelp = 0
        var sawStalledRewind = false
        var helpDrawnWhileStalled = false
        var gateWaitsWhenOpened = 0
        backend.nextKey = { backend in
            switch phase {
            case .reachTokens:
                // The first read (the loop's) stalls at once; Tab still moves the focus, key after key.
                guard gate.arrivals >= 1 else { return nil }
                if inspector.state.pane != .tokens { return .tab }
                phase = .stalledHelp
                return nil
            case .stalledHelp:
                // The token pane shows its selection at once, waiting for the server's answer.
                sawStalledRewind = inspector.state.snapshot.rewind?.meaning == "reading the server…"
                    && backend.screen.lines().joined(separator: "\n").contains("reading the server…")
                framesBeforeHelp = backend.drawCount
                phase = .helpShown
                return .character("?")
            case .helpShown:
                helpDrawnWhileStalled = inspector.state.overlay == .help && backend.drawCount > framesBeforeHelp
                    && backend.screen.lines().joined(separator: "\n").contains("? or Esc closes.")
                    && !inspector.isIdle

                gateWaitsWhenOpened = gate.arrivals
                gate.open()
                phase = .released
                return .escape
            case .released:
                // The answer comes back as an event: wait for the loop to apply it (no sleep: each turn is a key wait).
                guard inspector.isIdle, inspector.state.snapshot.rewind?.meaning != "reading the server…" else { return nil }
                phase = .done
                return .character("q")
            case .done:
                return .character("q")
            }
        }

        let executor = TerminalExecutor()
        try await withTaskExecutorPreference(executor) {
            try await inspector.run(backend: backend)
        }

        #expect(phase == .done)
        #expect(backend.timeouts.allSatisfy { $0 == -1 || $0 == Int(inspector.frameInterval) }, "paused, the loop asked for no timer but a held-back frame's: while the read ran it waited for a key or the read's end (the mailbox's pipe), never for a slice of time: \(Set(backend.timeouts))")
        #expect(gateWaitsWhenOpened == 1, "one read stalled; the keys meanwhile queued at most one more, none ran beside it")
        #expect(sawStalledRewind, "the selection moved to the tokens pane while the read stalled")
        #expect(helpDrawnWhileStalled, "? opened the help and a new frame showed it while the read stalled")
        let rewind = try #require(inspector.state.snapshot.rewind)
        #expect(rewind.meaning != "reading the server…", "the read's answer arrived as an event and shows")
        #expect(inspector.state.pane == .tokens)
        #expect(backend.screen.lines().joined(separator: "\n").contains(rewind.meaning.prefix(20)))
    }

    /// `q` quits even while a read never answers: the effect is cancelled and
    /// left behind after a short grace, instead of holding the terminal.
    @Test func quittingDoesNotWaitForAServerThatNeverAnswers() async throws {
        let inspector = try await makeInspector()
        let gate = Gate()
        inspector.observer = StallingObserver(base: inspector.simulation.serverObserver, gate: gate)
        inspector.runsEffectsConcurrently = true
        let backend = ProbeBackend(size: Size(width: 80, height: 24))
        var quitWhileStalled = false
        backend.nextKey = { _ in
            guard gate.arrivals >= 1 else { return nil }
            quitWhileStalled = !inspector.isIdle
            return .character("q")
        }
        let executor = TerminalExecutor()
        try await withTaskExecutorPreference(executor) {
            try await inspector.run(backend: backend)
        }
        #expect(quitWhileStalled, "q came while the read was stalled")
        #expect(gate.arrivals == 1)
        gate.open()
    }
}
