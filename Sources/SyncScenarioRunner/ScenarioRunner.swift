import Foundation
import SyncCore
import SyncClient
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

/// Runs a `Scenario` on a `Simulation`, one step at a time.
///
/// ```swift
/// let runner = try ScenarioRunner(scenario: try ScenarioParser.parse(fileAt: url))
/// while true {
///     let outcome = await runner.runNextStep()
///     if outcome.isEndOfScenario { break }
///     if let failure = outcome.failure { print(failure); break }
/// }
/// ```
///
/// Each step runs on the runner's ``simulation`` (the inspector shows the
/// same world). Action steps use the devices' sync engines, except `fetch`,
/// which runs the fetch the step describes (any token, one batch, an
/// interruption) and stores it as the engine would. Every device's
/// connection is observed, so the transcript shows each change fetch a
/// device made — its engine's or a `fetch` step's — with the server's answer. Checks compare what the
/// devices and the server hold with what the file expects; a check that does
/// not hold fails with the file, line and what differed.
///
/// A step that fails with a `CloudError` fails the run, unless an `error`
/// check comes after it before the next step that does something.
/// ``reset()`` starts again from the beginning with a fresh world.
///
/// The runner owns the world's temporary files (SQLite stores): keep it
/// alive while its ``simulation`` is in use.
///
/// Not thread-safe: drive it from one task.
public final class ScenarioRunner {
    public let scenario: Scenario
    /// The seed of this run: the one given, or the scenario's.
    public let seed: UInt64
    /// The world the steps run in; replaced by ``reset()``.
    public private(set) var simulation: Simulation
    /// The index in `Scenario.steps` of the step ``runNextStep()`` runs next.
    public private(set) var nextStepIndex = 0
    /// Everything the run did so far, oldest first.
    public private(set) var transcript: [TranscriptEvent] = []
    /// Checks that held so far.
    public private(set) var checksPassed = 0
    /// The first failure of the run, if any.
    public private(set) var firstFailure: ScenarioFailure?
    /// Called with every event of the simulation: the runner observes the
    /// simulation itself, so set this instead of `Simulation.eventObserver`.
    public var simulationEventObserver: ((WorldEvent) -> Void)?
    /// Called with every transcript event as it happens.
    public var transcriptObserver: ((TranscriptEvent) -> Void)?

    /// Whether every step has run.
    public var isFinished: Bool { nextStepIndex >= scenario.steps.count }

    // MARK: Run state

    var prepared = false
    var startTime: Milliseconds = 0
    var stepEvents: [TranscriptEvent] = []
    var captures: [String: CapturedTokens] = [:]
    var lastFetchByDevice: [String: FetchSummary] = [:]
    var lastFetch: FetchSummary?
    var lastSendByDevice: [String: SendSummary] = [:]
    var lastSend: SendSummary?
    /// Sends in progress in the current step, by device.
    var openSends: [String: SendSummary] = [:]
    /// The error of the latest step that did something; `nil`: it succeeded.
    var lastActionError: CloudError?
    /// How many notifications of each device earlier `notifications` checks saw.
    var notificationsSeen: [String: Int] = [:]
    let fetches = FetchObserver()
    /// Where the devices' connections report their change fetches.
    let tap = ConnectionTap()
    /// Accounts signed in with `signIn`, by device.
    var signedIn: [String: SignedInAccount] = [:]
    /// The user whose data each device's cache holds, once a `signIn` made it matter.
    var cacheOwners: [String: String] = [:]
    private var storeDirectory: URL?

    /// Tokens remembered with `capture:`.
    struct CapturedTokens {
        var database: (scope: DatabaseScope, token: ServerChangeToken)?
        var zones: [(scope: DatabaseScope, zoneID: RecordZoneID, token: ServerChangeToken)] = []

        var all: [ServerChangeToken] { (database.map { [$0.token] } ?? []) + zones.map(\.token) }
    }

    /// Builds the world the scenario describes (users, devices); the first
    /// ``runNextStep()`` (or ``prepare()``) creates its subscriptions.
    ///
    /// - Parameter seed: overrides the scenario's seed.
    /// - Throws: a `CloudError` when the world cannot be built (a device's
    ///   SQLite store cannot be created, for example).
    public init(scenario: Scenario, seed: UInt64? = nil) throws {
        self.scenario = scenario
        self.seed = seed ?? scenario.seed
        let directory = try Self.makeStoreDirectory(for: scenario)
        storeDirectory = directory
        simulation = try Self.makeSimulation(scenario, seed: seed ?? scenario.seed, storeDirectory: directory, tap: tap)
        startTime = simulation.clock.now()
        wireUp()
    }

    deinit {
        if let storeDirectory { try? FileManager.default.removeItem(at: storeDirectory) }
    }

    /// Throws away the world and every result, and builds the world again:
    /// the next ``runNextStep()`` runs the first step.
    public func reset() throws {
        if let storeDirectory { try? FileManager.default.removeItem(at: storeDirectory) }
        let directory = try Self.makeStoreDirectory(for: scenario)
        storeDirectory = directory
        tap.isObserving = false
        simulation = try Self.makeSimulation(scenario, seed: seed, storeDirectory: directory, tap: tap)
        startTime = simulation.clock.now()
        nextStepIndex = 0
        transcript = []
        checksPassed = 0
        firstFailure = nil
        prepared = false
        stepEvents = []
        captures = [:]
        lastFetchByDevice = [:]
        lastFetch = nil
        lastSendByDevice = [:]
        lastSend = nil
        openSends = [:]
        lastActionError = nil
        notificationsSeen = [:]
        signedIn = [:]
        cacheOwners = [:]
        fetches.reset()
        wireUp()
    }

    /// Stops following the simulation (it keeps running, for example with a
    /// demo writer): no more transcript events, and ``simulationEventObserver``
    /// becomes the simulation's own observer. ``reset()`` follows it again.
    public func detach() {
        simulation.eventObserver = simulationEventObserver
        tap.isObserving = false
    }

    private func wireUp() {
        tap.isObserving = true
        simulation.eventObserver = { [unowned self] event in self.observe(event) }
        fetches.report = { [unowned self] kind in self.append(kind) }
        fetches.finished = { [unowned self] summary in
            self.lastFetchByDevice[summary.device] = summary
            self.lastFetch = summary
        }
    }

    // MARK: Building the world

    private static func makeStoreDirectory(for scenario: Scenario) throws -> URL? {
        guard scenario.devices.contains(where: { $0.store == .sqlite }) else { return nil }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("syncscope-\(scenario.name)-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CloudError(.internalError, "Cannot create a folder for the devices' SQLite stores at \(directory.path): \(error.localizedDescription)")
        }
        return directory
    }

    static func makeSimulation(_ scenario: Scenario, seed: UInt64, storeDirectory: URL?, tap: ConnectionTap) throws -> Simulation {
        var server = ServerConfiguration(seed: seed)
        server.retention = scenario.server.retention
        let push = PushConfiguration(
            coalescingWindow: scenario.server.coalescingWindowMs, deliveryLatency: scenario.server.pushLatencyMs)
        let devices = scenario.devices.map { device in
            SimulationSetup.Device(
                name: device.name, user: device.user,
                storePath: device.store == .sqlite
                    ? storeDirectory?.appendingPathComponent("\(device.name).sqlite").path : nil,
                autoFetchOnPush: device.autoFetchOnPush, retry: device.retry, environment: device.environment)
        }
        var setup = SimulationSetup(
            seed: seed, server: server, push: push, container: scenario.server.container ?? ServerSetup.defaultContainer,
            users: scenario.users, devices: devices,
            connectionWrapper: { service, device in ObservedConnection(base: service, deviceName: device, tap: tap) })
        setup.faults = scenario.faults
        return try Simulation(setup: setup)
    }

    /// Creates the scenario's initial subscriptions (once; ``runNextStep()``
    /// does it before the first step). Returns the failure, if one fails.
    @discardableResult
    public func prepare() async -> ScenarioFailure? {
        guard !prepared else { return nil }
        prepared = true
        record(.scenario(name: scenario.name, title: scenario.title, seed: seed, file: fileName))
        if let summary = scenario.summary { record(.say(summary)) }
        for subscription in scenario.subscriptions {
            do {
                try await subscribe(subscription)
            } catch {
                let failure = ScenarioFailure(
                    location: SourceLocation(file: fileName, line: 0, column: 0), stepName: "subscriptions",
                    message: "subscription '\(subscription.subscriptionID)' could not be created: \(Self.describe(error))")
                firstFailure = firstFailure ?? failure
                return failure
            }
        }
        stepEvents = []
        return nil
    }

    /// The scenario file's name, as diagnostics give it.
    var fileName: String {
        scenario.steps.first?.location.file ?? scenario.name
    }

    // MARK: Running

    /// Runs the next step and says how it went. At the end of the scenario
    /// it does nothing and says so (``StepOutcome/isEndOfScenario``).
    public func runNextStep() async -> StepOutcome {
        if !prepared, let failure = await prepare() {
            let events = stepEvents
            stepEvents = []
            return StepOutcome(index: nextStepIndex, step: nil, status: .failed(failure), events: events, error: nil)
        }
        guard nextStepIndex < scenario.steps.count else {
            return StepOutcome(index: nextStepIndex, step: nil, status: .endOfScenario, events: [], error: nil)
        }
        let index = nextStepIndex
        let step = scenario.steps[index]
        nextStepIndex += 1
        stepEvents = []
        let category: StepCategory = switch step.kind {
        case .say, .ask: .narrative
        case .expect: .check
        default: .action
        }
        record(.step(index: index, name: step.kind.name, location: step.location, summary: summary(of: step.kind), category: category))
        // For the presenter only: a --cast recording shows it, the transcript does not.
        if let note = step.note { record(.presenterNote(note)) }

        var status = StepOutcome.Status.completed
        var stepError: CloudError?
        switch step.kind {
        case .say(let text):
            simulation.note(text)
            record(.say(text))
        case .ask(let question):
            // Headless, nobody is asked: the question comes with its answer.
            simulation.note("? " + question.question)
            record(.say(question.transcriptText))
        case .expect(let expectation):
            let failure = await evaluate(expectation)
            record(.check(index: index, name: expectation.name, location: step.location, failure: failure))
            if let failure {
                status = .failed(ScenarioFailure(location: step.location, stepName: expectation.name, message: failure))
            } else {
                checksPassed += 1
            }
        default:
            let error = await perform(step.kind)
            finishStep()
            lastActionError = error
            stepError = error
            if let error {
                let expected = nextCheckIsError(after: index)
                record(.error(device: step.kind.device, error, expected: expected))
                if !expected {
                    status = .failed(ScenarioFailure(
                        location: step.location, stepName: step.kind.name,
                        message: "\(error.code.rawValue) (\(error.serverErrorCode)): \(error.reason)"))
                }
            }
        }
        if case .failed(let failure) = status, firstFailure == nil { firstFailure = failure }
        let events = stepEvents
        stepEvents = []
        return StepOutcome(index: index, step: step, status: status, events: events, error: stepError)
    }

    /// Runs every remaining step, stopping at the first failure. Returns
    /// that failure, or `nil` when every check held.
    public func runToEnd() async -> ScenarioFailure? {
        while true {
            let outcome = await runNextStep()
            if let failure = outcome.failure {
                record(.finished(checks: checksPassed, failure: failure))
                return failure
            }
            if outcome.isEndOfScenario {
                record(.finished(checks: checksPassed, failure: nil))
                return nil
            }
        }
    }

    /// Whether the first step after `index`, `say` steps aside, is an `error` check.
    func nextCheckIsError(after index: Int) -> Bool {
        for step in scenario.steps[(index + 1)...] {
            switch step.kind {
            case .say, .ask: continue
            case .expect(.error): return true
            default: return false
            }
        }
        return false
    }

    /// Closes what the step left open: fetches the engines made, sends.
    private func finishStep() {
        takeObservedFetches()
        fetches.closeAll(devices: simulation.devices)
        for (device, summary) in openSends.sorted(by: { $0.key < $1.key }) {
            lastSendByDevice[device] = summary
            lastSend = summary
        }
        openSends = [:]
    }

    // MARK: Events

    /// Adds a transcript event, after the fetches observed before it.
    func record(_ kind: TranscriptEvent.Kind) {
        takeObservedFetches()
        append(kind)
    }

    /// Gives the fetch observer what the connections saw since last time, so
    /// each batch's line comes before whatever happened after it.
    func takeObservedFetches() {
        fetches.take(tap.drain()) { [simulation] name in simulation.device(named: name) }
    }

    private func append(_ kind: TranscriptEvent.Kind) {
        let event = TranscriptEvent(time: simulation.clock.now() - startTime, kind: kind)
        transcript.append(event)
        stepEvents.append(event)
        transcriptObserver?(event)
    }

    private func observe(_ event: WorldEvent) {
        if recordFaultBeforeItsFetch(event) {
            simulationEventObserver?(event)
            return
        }
        takeObservedFetches()
        switch event.kind {
        case .sync(let syncEvent):
            if let name = event.device, let device = simulation.device(named: name) {
                fetches.handle(syncEvent, on: device)
                observe(syncEvent, on: name)
            }
        case .delivered(let delivery):
            if let name = event.device { record(.notification(device: name, delivery.notification)) }
        case .fault, .push:
            observeFault(event)
        default:
            break
        }
        simulationEventObserver?(event)
    }

    /// Turns a device's engine events into transcript lines and send results.
    func observe(_ event: SyncEvent, on device: String) {
        switch event {
        case .changesSent(let scope, let zoneID, let saved, let deleted):
            openSends[device]?.saved += saved.map(\.recordName)
            openSends[device]?.deleted += deleted.map(\.recordName)
            record(.recordsSent(device: device, scope: scope, zoneID: zoneID, saved: saved.map(\.recordName), deleted: deleted.map(\.recordName)))
        case .zonesSent(_, let saved, let deleted):
            if !saved.isEmpty { record(.note(device: device, "zones created on the server: \(saved.map(\.zoneName).joined(separator: ", "))")) }
            if !deleted.isEmpty { record(.note(device: device, "zones deleted on the server: \(deleted.map(\.zoneName).joined(separator: ", "))")) }
        case .conflictMerged(_, let recordID, _, let keys):
            addConflict(recordID.recordName, device: device)
            record(.conflict(device: device, recordName: recordID.recordName, merged: true, keys: keys))
        case .error(let report) where report.code == .serverRecordChanged && report.recordID != nil:
            if let recordID = report.recordID {
                addConflict(recordID.recordName, device: device)
                record(.conflict(device: device, recordName: recordID.recordName, merged: false, keys: []))
            }
        case .tokenExpired(let kind, let scope, let zoneID):
            let what = zoneID.map { "zone \($0.zoneName)" } ?? "\(scope.rawValue) database"
            record(.note(device: device, "\(kind == .database ? "database" : "zone") token of \(what) expired: fetching it again from no token"))
        case .zoneDeleted(let scope, let zoneID, let reason, let removed, _):
            record(.note(device: device, "dropped zone \(TranscriptFormatter.zoneName(zoneID, scope: scope)) (\(reason.rawValue)) and \(Self.count(removed, "cached record"))"))
        case .zonePurged(let scope, let zoneID, let removed, _):
            record(.note(device: device, "zone \(TranscriptFormatter.zoneName(zoneID, scope: scope)) purged: dropped \(Self.count(removed, "cached record")); it will not be uploaded again"))
        case .zoneEncryptedDataReset(let scope, let zoneID, let queued):
            record(.note(device: device, "zone \(TranscriptFormatter.zoneName(zoneID, scope: scope)) lost in an encrypted-data reset: queued \(Self.count(queued, "record")) for upload"))
        case .vanishedRecordsRemoved(_, let zoneID, let ids):
            record(.note(device: device, "reconciled \(zoneID.zoneName): removed \(ids.map(\.recordName).joined(separator: ", ")), which the full fetch did not return"))
        case .pendingChangeDropped(let change, let reason):
            record(.note(device: device, "gave up a pending change (\(change)): \(reason)"))
        case .fetchInterrupted(let batches):
            record(.note(device: device, "fetch interrupted after \(Self.count(batches, "batch", plural: "batches"))"))
        case .retryScheduled, .ambiguousCommitResolved:
            observeRetry(event, on: device)
        default:
            break
        }
    }

    private func addConflict(_ recordName: String, device: String) {
        guard openSends[device] != nil, openSends[device]?.conflicts.contains(recordName) == false else { return }
        openSends[device]?.conflicts.append(recordName)
    }

    /// `1 record`, `2 records`.
    static func count(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        n == 1 ? "1 \(singular)" : "\(n) \(plural ?? singular + "s")"
    }

    static func describe(_ error: any Error) -> String {
        if let cloud = error as? CloudError { return "\(cloud.code.rawValue) (\(cloud.serverErrorCode)): \(cloud.reason)" }
        return String(describing: error)
    }
}
