import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncSimulation

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
            writer changes a note every few seconds. Press ? in the inspector for every key.
            """
    )

    @Option(help: "Seed for the simulation; the same seed gives the same world and the same writer.")
    var seed: UInt64 = 1

    @Option(help: "Simulated seconds per real second (0.25 to 50).")
    var speed: Double = 1

    @Flag(help: "Start with the clock paused (Space runs it).")
    var paused = false

    @Option(help: "Write a log of every event, key and action to this file.")
    var log: String?

    @Flag(help: "Start with the demo writer stopped (w starts it).")
    var noWriter = false

    func validate() throws {
        guard speed >= 0.25, speed <= 50 else { throw ValidationError("--speed must be between 0.25 and 50 (got \(speed)).") }
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Self.printError("syncscope needs a terminal; try `syncscope demo` for the headless tour.")
            throw ExitCode(2)
        }
        try await Self.runInspector(seed: seed, speed: speed, paused: paused, logPath: log, writer: !noWriter)
    }

    /// Everything curses touches runs here, on the main actor (one thread).
    @MainActor
    static func runInspector(seed: UInt64, speed: Double, paused: Bool, logPath: String?, writer: Bool) async throws {
        let log = try logPath.map { path throws(TerminalError) in try InspectorLog(path: path) }
        let simulation = try await DemoWorld.make(seed: seed, writerRunning: writer)
        let backend: NcursesBackend
        do {
            backend = try NcursesBackend()
        } catch {
            Self.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        let controller = InspectorController(
            simulation: simulation, paused: paused, speed: speed, screenSize: backend.size,
            theme: backend.environmentTheme(), log: log)
        log?.write("inspector started: seed \(seed), speed \(speed), \(paused ? "paused" : "running")")
        do {
            try await controller.run(backend: backend)
            backend.restore()
        } catch {
            backend.restore()
            Self.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        log?.write("inspector ended")
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
