import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncInspectorWorlds
import SyncRemoteWorld
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
        abstract: "Open the inspector on a simulated server with demo data (the default), or on a running server (--server).",
        discussion: """
            Two users and three devices (alice's iPhone and Mac, bob's iPad sharing \
            alice's Notes zone) sync through an embedded simulated server while a \
            writer changes a note every few seconds. The world comes from \
            Assets/demo/demo.yaml. Press ? in the inspector for every key.

            With --server URL it watches a running `syncscope serve` instead, with the \
            server admin token: every client of the server as it appears (your app, \
            a pyicloud script, CloudKit JS, `syncscope device`), every user's zones and \
            records, the focused client's token history rebuilt from its own traffic \
            (each token sent and given, the batch, moreComing, whether it came back \
            with it, how far behind the server it is), its requests and pushes (Enter \
            shows a request's body and answer), and the sync doctor's diagnoses.
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

    @Option(help: "Watch a running `syncscope serve` at this address (http://HOST:PORT) instead of the demo world.")
    var server: String?

    @OptionGroup(title: "With --server") var admin: AdminAccessOptions

    @OptionGroup(title: "With --server") var watched: WatchedContainerOptions

    func validate() throws {
        guard speed >= 0.25, speed <= 50 else { throw ValidationError("--speed must be between 0.25 and 50 (got \(speed)).") }
        if let server { _ = try DoctorCommand.url(server) }
        if server == nil, admin.isGiven {
            throw ValidationError("--admin-token and --server-data go with --server URL (the server to watch).")
        }
        if server == nil, watched.isGiven {
            throw ValidationError("--container and --environment go with --server URL (they choose what the inspector shows of that server).")
        }
    }

    func run() async throws {
        if let server {
            let token: String
            switch admin.token() {
            case .success(let found): token = found
            case .failure(let missing):
                InspectorLauncher.printError("syncscope inspect: \(missing.message)")
                throw ExitCode(2)
            }
            let (url, container, environment, log) = (try DoctorCommand.url(server), watched.watchedContainer, watched.watchedEnvironment, log)
            // The server and the token first (making the world checks them): the problem said is the real one, terminal or not.
            let world: ServerWatchWorld
            do {
                world = try await ServerWatchWorld(serverURL: url, adminToken: token, container: container, environment: environment)
            } catch {
                InspectorLauncher.printError("syncscope inspect: \(error.reason)")
                throw ExitCode(1)
            }
            try InspectorLauncher.requireTerminal(hint: "try `syncscope doctor --server \(server)` for the diagnoses as text")
            try await TerminalActor().run {
                try await ServerInspection.run(world, logPath: log)
            }
            return
        }
        try InspectorLauncher.requireTerminal(hint: "try `syncscope demo` for the headless tour")
        let seed = seed
        let writer = !noWriter
        try await InspectorLauncher.run(paused: paused, speed: speed, logPath: log, recordPath: record) {
            let built = try await DemoWorld.make(seed: seed, writerRunning: writer)
            return (built.simulation, nil, built.runner)
        }
    }
}
