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
        paused: Bool, speed: Double, logPath: String?, recordPath: String? = nil, title: String = "SyncScope", presenting: Bool = false,
        world: @escaping @Sendable () async throws -> (Simulation, LessonSession?, AnyObject?)
    ) async throws {
        let terminal = TerminalActor()
        try await terminal.run {
            try await runOnTerminal(
                paused: paused, speed: speed, logPath: logPath, recordPath: recordPath, title: title, presenting: presenting,
                world: world)
        }
    }

    private static func runOnTerminal(
        paused: Bool, speed: Double, logPath: String?, recordPath: String?, title: String, presenting: Bool,
        world: () async throws -> (Simulation, LessonSession?, AnyObject?)
    ) async throws {
        let log = try openLog(logPath)
        if let recordPath, !FileManager.default.createFile(atPath: recordPath, contents: nil) {
            printError("syncscope: cannot create the recording \(recordPath): check that its folder exists and can be written.")
            throw ExitCode(1)
        }
        let (simulation, lesson, keepAlive) = try await world()
        let backend = try openTerminal()
        // The first line, before the events of the world's first sync (the controller logs those).
        log?.write("inspector started: \(lesson.map { "lesson \($0.scenario.name)" } ?? "demo world"), speed \(speed), \(paused ? "paused" : "running")")
        let controller = await InspectorController(
            simulation: simulation, lesson: lesson, keepAlive: keepAlive, paused: paused, speed: speed, screenSize: backend.size,
            theme: backend.environmentTheme(), log: log)
        if presenting { controller.startPresenting() }
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
                try await controller.run(backend: recorder)
            } else {
                try await controller.run(backend: backend)
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

    /// Takes the terminal (curses), or says why it cannot and fails.
    static func openTerminal() throws -> NcursesBackend {
        do {
            return try NcursesBackend()
        } catch {
            printError("syncscope: \(error)")
            throw ExitCode(1)
        }
    }

    /// Opens the `--log` file, or says why it cannot and fails.
    static func openLog(_ path: String?) throws -> InspectorLog? {
        do {
            return try path.map { path throws(TerminalError) in try InspectorLog(path: path) }
        } catch {
            printError("syncscope: \(error)")
            throw ExitCode(1)
        }
    }

    /// Runs the inspector on a live world (a device on a server, a server
    /// watched whole) until the person quits, and gives the terminal back.
    /// Call it on the terminal's thread (``TerminalActor``).
    static func runLive(_ world: SyncWorld, log: InspectorLog?, started: String) async throws {
        let backend = try openTerminal()
        // The first line, before the world's first events (the controller logs those).
        log?.write("inspector started: \(started)")
        let controller = await InspectorController(world: world, screenSize: backend.size, theme: backend.environmentTheme(), log: log)
        do {
            try await controller.run(backend: backend)
            backend.restore()
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
