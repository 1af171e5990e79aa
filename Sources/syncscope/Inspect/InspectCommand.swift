import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncInspectorWorlds
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Open the inspector on a simulated server with demo data (the default).",
        discussion: """
            Two users and three devices (alice's iPhone and Mac, bob's iPad sharing \
            alice's Notes zone) sync through an embedded simulated server while a \
            writer changes a note every few seconds. The world comes from \
            Assets/demo/demo.yaml. Press ? in the inspector for every key.
            """
    )

    @Option(help: "Seed for the simulation (default: the demo file's); the same seed gives the same world and writer.")
    var seed: UInt64?

    @Option(help: "Simulated seconds per real second (0.25 to 50).")
    var speed: Double = 1

    @Flag(help: "Start with the clock paused (Space runs it).")
    var paused = false

    @Option(help: "Write a log of every event, key and action to this file.")
    var log: String?

    @Flag(help: "Start with the demo writer stopped (w starts it).")
    var noWriter = false

    @Option(help: ArgumentHelp("Record what the terminal shows, with real timings, as an asciinema v2 file.", valueName: "file.cast"))
    var record: String?

    func validate() throws {
        guard speed >= 0.25, speed <= 50 else { throw ValidationError("--speed must be between 0.25 and 50 (got \(speed)).") }
    }

    func run() async throws {
        try InspectorLauncher.requireTerminal(hint: "try `syncscope demo` for the headless tour")
        let seed = seed
        let writer = !noWriter
        try await InspectorLauncher.run(paused: paused, speed: speed, logPath: log, recordPath: record) {
            let built = try await DemoWorld.make(seed: seed, writerRunning: writer)
            return (built.simulation, nil, built.runner)
        }
    }
}

struct LessonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lesson",
        abstract: "Play a lesson in the inspector, one step at a time.",
        discussion: """
            NAME is a lesson's name or number (see `syncscope lessons`) or a scenario file. \
            The lesson pane tells the story; Enter runs the next step and the panes show \
            what it did; p steps back, t lists the steps to jump to one, b goes back to the \
            start. The focused device follows each step (m pins it). The clock stays paused \
            unless you run it (Space), so the lesson plays exactly as written. With --record, \
            what the terminal shows is saved as an asciinema v2 recording, for slides.
            """
    )

    @Argument(help: "The lesson's name or number, or a scenario file.")
    var name: String

    @Option(help: "Seed for the run (default: the lesson's).")
    var seed: UInt64?

    @Option(help: "Write a log of every event, key and action to this file.")
    var log: String?

    @Option(help: ArgumentHelp("Record what the terminal shows, with real timings, as an asciinema v2 file.", valueName: "file.cast"))
    var record: String?

    func run() async throws {
        try InspectorLauncher.requireTerminal(hint: "try `syncscope run \(name)` for the headless version")
        let scenario: Scenario
        do {
            scenario = try ScenarioLocator.load(name)
        } catch {
            InspectorLauncher.printError(error.rendered())
            throw ExitCode(2)
        }
        let seed = seed
        try await InspectorLauncher.run(paused: true, speed: 1, logPath: log, recordPath: record, title: scenario.title ?? scenario.name) {
            let lesson = try LessonSession(scenario: scenario, seed: seed)
            return (lesson.simulation, lesson, nil)
        }
    }
}

/// Starts the inspector on a terminal and gives the terminal back afterwards.
enum InspectorLauncher {
    /// Standard input and output must be a terminal; otherwise say so and fail.
    static func requireTerminal(hint: String) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            printError("syncscope needs a terminal; \(hint).")
            throw ExitCode(2)
        }
    }

    /// Builds the world, then runs the inspector. Everything curses touches
    /// runs on the terminal's thread (``TerminalActor``), as for `syncscope device`.
    static func run(
        paused: Bool, speed: Double, logPath: String?, recordPath: String? = nil, title: String = "SyncScope",
        world: @escaping @Sendable () async throws -> (Simulation, LessonSession?, AnyObject?)
    ) async throws {
        let terminal = TerminalActor()
        try await terminal.run {
            try await runOnTerminal(
                paused: paused, speed: speed, logPath: logPath, recordPath: recordPath, title: title, executor: terminal.executor,
                world: world)
        }
    }

    private static func runOnTerminal(
        paused: Bool, speed: Double, logPath: String?, recordPath: String?, title: String, executor: TerminalExecutor,
        world: () async throws -> (Simulation, LessonSession?, AnyObject?)
    ) async throws {
        let log: InspectorLog?
        do {
            log = try logPath.map { path throws(TerminalError) in try InspectorLog(path: path) }
        } catch {
            printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        if let recordPath, !FileManager.default.createFile(atPath: recordPath, contents: nil) {
            printError("syncscope: cannot create the recording \(recordPath): check that its folder exists and can be written.")
            throw ExitCode(1)
        }
        let (simulation, lesson, keepAlive) = try await world()
        let backend: NcursesBackend
        do {
            backend = try NcursesBackend()
        } catch {
            printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        // The first line, before the events of the world's first sync (the controller logs those).
        log?.write("inspector started: \(lesson.map { "lesson \($0.scenario.name)" } ?? "demo world"), speed \(speed), \(paused ? "paused" : "running")")
        let controller = await InspectorController(
            simulation: simulation, lesson: lesson, keepAlive: keepAlive, paused: paused, speed: speed, screenSize: backend.size,
            theme: backend.environmentTheme(), log: log)
        var recorder: RecordingBackend<NcursesBackend>?
        if let recordPath {
            do {
                let writer = try AsciicastWriter(
                    path: recordPath, width: backend.size.width, height: backend.size.height, title: title,
                    timestamp: Int(Date().timeIntervalSince1970))
                recorder = RecordingBackend(base: backend, writer: writer)
            } catch {
                backend.restore()
                printError("syncscope: \(error)")
                throw ExitCode(1)
            }
        }
        do {
            if let recorder {
                try await controller.run(backend: recorder, executor: executor)
            } else {
                try await controller.run(backend: backend, executor: executor)
            }
            backend.restore()
            if let recorder { printError("Recorded \(recorder.frames) frames to \(recorder.writer.path) (asciinema v2: play it with `asciinema play`).") }
        } catch {
            backend.restore()
            printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        log?.write("inspector ended")
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
