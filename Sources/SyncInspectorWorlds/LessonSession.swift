import SyncCore
import SyncClient
import SyncInspector
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds

/// A lesson played step by step in the inspector: Enter runs the next step,
/// the panes show the world it changes, `b` starts again, and
/// ``goTo(stepsRun:)`` steps back or jumps by rebuilding the world and
/// replaying the steps before (runs are deterministic). It keeps what the
/// lesson-mode screen needs: the checks so far, the device and the panes
/// the latest step touched, the outline.
public final class LessonSession: InspectorLesson {
    public let scenario: Scenario
    public private(set) var runner: ScenarioRunner
    /// The latest narrative (`say`) text.
    public private(set) var narrative: String?
    /// What the latest step did, as transcript lines.
    public private(set) var lastStep: [String] = []
    /// The latest step's failure (a check that did not hold), if any.
    public private(set) var failure: ScenarioFailure?
    /// Every check run so far, in order: held, or what differed.
    public private(set) var checks: [LessonCheck] = []
    /// The device the latest step acted on (for a check: the device it examined).
    public private(set) var lastStepDevice: String?
    /// The panes the latest step changed.
    public private(set) var lastTouched: Set<LessonPane> = []
    /// Called when ``restart()`` built a new world.
    public var onRestart: ((SyncWorld) -> Void)?

    /// The simulation's clock when the run began (transcript times count from it).
    private var startTime: Milliseconds
    /// Tokens each device received, from the transcript, and how much of it was read.
    private var receipts: [String: [TokenReceipt]] = [:]
    private var transcriptRead = 0

    public init(scenario: Scenario, seed: UInt64? = nil) throws {
        self.scenario = scenario
        runner = try ScenarioRunner(scenario: scenario, seed: seed)
        startTime = runner.simulation.clock.now()
        narrative = scenario.summary
    }

    /// Every token `device` received, oldest first: those of the engine's
    /// fetches and of the lesson's own `fetch` steps (which the engine's
    /// token history does not see), read from the runner's transcript.
    public func tokenReceipts(for device: SyncDevice) -> [TokenReceipt] {
        let transcript = runner.transcript
        if transcriptRead < transcript.count {
            for event in transcript[transcriptRead...] {
                let time = startTime + event.time
                switch event.kind {
                case .databaseChanges(let name, let scope, let batch, let answer):
                    receipts[name, default: []].append(TokenReceipt(
                        deviceID: nil, kind: .database, scope: scope, zoneID: nil, token: answer.serverChangeToken,
                        operation: "changes/database", batchIndex: batch, moreComing: answer.moreComing,
                        changeCount: answer.changes.count, time: time))
                case .zoneChanges(let name, let scope, let batch, let answer):
                    receipts[name, default: []].append(TokenReceipt(
                        deviceID: nil, kind: .recordZone, scope: scope, zoneID: answer.zoneID, token: answer.serverChangeToken,
                        operation: "changes/zone", batchIndex: batch, moreComing: answer.moreComing,
                        changeCount: answer.changes.count, time: time))
                default:
                    break
                }
            }
            transcriptRead = transcript.count
        }
        return receipts[device.name] ?? []
    }

    public var simulation: Simulation { runner.simulation }
    public var world: SyncWorld { runner.simulation }
    public var title: String { scenario.title ?? scenario.name }
    public var failureMessage: String? { failure?.message }
    /// The runner watches its simulation itself and passes events on.
    public var eventObserver: ((WorldEvent) -> Void)? {
        get { runner.simulationEventObserver }
        set { runner.simulationEventObserver = newValue }
    }
    public var stepCount: Int { scenario.steps.count }
    /// How many steps ran.
    public var stepsRun: Int { runner.nextStepIndex }
    public var isFinished: Bool { runner.isFinished }

    /// "say", "fetch: Mac fetches…": what the next step is, or `nil` at the end.
    public var nextStepSummary: String? {
        guard runner.nextStepIndex < scenario.steps.count else { return nil }
        let step = scenario.steps[runner.nextStepIndex]
        if case .say = step.kind { return "narrative" }
        if case .ask = step.kind { return "a question for the room" }
        return "\(step.kind.name): \(runner.summary(of: step.kind))"
    }

    /// The latest step run, if any.
    private var latestStep: Step? {
        stepsRun > 0 ? scenario.steps[stepsRun - 1] : nil
    }

    /// The code the screen shows now. The lesson's own code wins: the
    /// latest step's `code:`, or the `code:` written since the narration
    /// that introduced it; else the code made from the step. After narration,
    /// the code of the step it introduces; after a check, that of the step
    /// it checks.
    public var code: LessonCode? {
        guard stepsRun > 0 else { return nil }
        let steps = scenario.steps
        let latest = stepsRun - 1
        if let written = steps[latest].code { return LessonCode(written) }
        switch steps[latest].kind {
        case .say, .ask:
            for step in steps[stepsRun...] {
                if case .say = step.kind { break }
                if let code = step.clientCode { return LessonCode(code) }
            }
            return nil
        case .expect:
            // The step it checks: the nearest action before it.
            guard let action = steps[..<latest].lastIndex(where: \.kind.isAction) else { return nil }
            return code(of: action)
        default:
            return code(of: latest)
        }
    }

    /// An action step's code: its own, else what the narration it belongs
    /// to wrote (the latest `say` before it, and the steps between), else
    /// the code made from it.
    private func code(of index: Int) -> LessonCode? {
        let steps = scenario.steps
        if let written = steps[index].code { return LessonCode(written) }
        for step in steps[..<index].reversed() {
            if let written = step.code { return LessonCode(written) }
            if case .say = step.kind { break }
        }
        return steps[index].kind.generatedCode.map(LessonCode.init)
    }

    /// The question of the latest step, when it is an `ask:`.
    public var question: LessonQuestion? {
        guard case .ask(let ask)? = latestStep?.kind else { return nil }
        return LessonQuestion(question: ask.question, choices: ask.letteredChoices, answer: ask.answerText)
    }

    /// The presenter's note of the latest step.
    public var note: String? { latestStep?.note }

    /// One line per step, for the outline.
    public private(set) lazy var outline: [String] = {
        scenario.steps.map { step in
            if case .say(let text) = step.kind {
                let firstLine = text.split(separator: "\n").first.map(String.init) ?? text
                return "say: " + firstLine
            }
            if case .ask(let ask) = step.kind { return "ask: " + ask.question }
            if case .expect = step.kind {
                return "expect \(step.kind.name)" + (Self.device(of: step.kind).map { " (\($0))" } ?? "") + ", line \(step.location.line)"
            }
            return "\(step.kind.name): \(runner.summary(of: step.kind))"
        }
    }()

    /// Throws the world away and runs the first `stepsRun` steps again (the
    /// world is deterministic, so it is the world those steps made before):
    /// how the inspector steps back and jumps.
    public func goTo(stepsRun target: Int) async throws {
        let target = max(0, min(target, stepCount))
        try restart()
        while self.stepsRun < target {
            await next()
        }
    }

    /// Runs the next step.
    @discardableResult
    public func next() async -> StepOutcome {
        let outcome = await runner.runNextStep()
        if let step = outcome.step {
            lastStepDevice = Self.device(of: step.kind)
            lastTouched = LessonMode.touchedPanes(
                stepName: step.kind.name, eventKinds: outcome.events.map { Self.kindName($0.kind) })
            if case .expect(let expectation) = step.kind {
                checks.append(LessonCheck(
                    stepIndex: outcome.index, name: expectation.name, line: step.location.line, failure: outcome.failure?.message))
            }
        } else {
            lastStepDevice = nil
            lastTouched = []
        }
        if case .say(let text)? = outcome.step?.kind { narrative = text }
        lastStep = outcome.events.compactMap { event -> [String]? in
            switch event.kind {
            case .say, .step, .scenario: return nil  // the narrative and the footer say these
            default: break
            }
            guard let text = TranscriptFormatter.text(event) else { return nil }
            return text.split(separator: "\n", omittingEmptySubsequences: true).map {
                String($0.drop { $0 == " " })
            }
        }.flatMap { $0 }
        failure = outcome.failure
        return outcome
    }

    public func runNextStep() async -> LessonStepResult {
        let outcome = await next()
        var isNarrative = false
        switch outcome.step?.kind {
        case .say?, .ask?: isNarrative = true
        default: break
        }
        return LessonStepResult(
            failedStep: outcome.failure?.stepName, failureMessage: outcome.failure?.message, error: outcome.error, isNarrative: isNarrative)
    }

    /// Throws the world away and builds it again: the next step is the first.
    public func restart() throws {
        try runner.reset()
        startTime = runner.simulation.clock.now()
        receipts = [:]
        transcriptRead = 0
        narrative = scenario.summary
        lastStep = []
        failure = nil
        checks = []
        lastStepDevice = nil
        lastTouched = []
        onRestart?(runner.simulation)
    }

    /// The device a step acts on, or the device a check examines.
    static func device(of kind: StepKind) -> String? {
        guard case .expect(let expectation) = kind else { return kind.device }
        switch expectation {
        case .cache(let c): return c.device
        case .lastFetch(let c): return c.device
        case .notifications(let c): return c.device
        case .tokens(let c): return c.device
        case .lastSend(let c): return c.device
        case .pending(let c): return c.device
        case .retries(let c): return c.device
        case .error, .subscriptions: return nil
        }
    }

    static func kindName(_ kind: TranscriptEvent.Kind) -> String {
        switch kind {
        case .databaseChanges: "databaseChanges"
        case .zoneChanges: "zoneChanges"
        case .recordsSent: "recordsSent"
        case .conflict: "conflict"
        case .notification: "notification"
        case .note: "note"
        case .error: "error"
        default: "other"
        }
    }
}

extension LessonCode {
    /// The inspector's value of a step's code.
    init(_ code: StepCode) {
        self.init(title: code.title, fixed: code.fixed, wrong: code.wrong)
    }
}
