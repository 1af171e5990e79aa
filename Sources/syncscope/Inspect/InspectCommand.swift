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
