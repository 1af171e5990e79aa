import Foundation
import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncScopeAssets
import SyncServer
import SyncSimulation
import SyncWorlds

/// The world `syncscope` opens on, from `Assets/demo/demo.yaml`: alice's
/// iPhone and Mac and bob's iPad, alice's Notes zone shared with bob, their
/// subscriptions, and a few notes and photos. The scenario runner plays the
/// file's steps; then a writer on every device changes a note every few
/// seconds (the first change comes within a second), so the screen is alive at once.
public enum DemoWorld {
    /// The zone the writer writes into.
    public static let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
    public static let photos = RecordZoneID(zoneName: "Photos", ownerName: "alice")

    /// A built world and the runner that owns its temporary files: keep
    /// `runner` alive while `simulation` is in use.
    public struct Built {
        public let simulation: Simulation
        public let runner: ScenarioRunner
    }

    /// The demo scenario file.
    public static func scenario() throws -> Scenario {
        guard let url = AssetCatalog.demoScenarioURL else {
            throw CloudError(.internalError, "The demo world (demo/demo.yaml) is missing from this build's resources.")
        }
        do {
            return try ScenarioParser.parse(fileAt: url)
        } catch {
            throw CloudError(.internalError, "The demo world cannot be read: \(error.errors.first.map { "\($0)" } ?? "unknown problem")")
        }
    }

    /// Plays the demo file's steps, lets every device catch up, and attaches the writer.
    ///
    /// - Parameters:
    ///   - seed: the same seed gives the same world and the same writer,
    ///     byte for byte; `nil`: the file's seed.
    ///   - writerRunning: whether the writer starts running (it is attached either way).
    ///   - writerInterval: virtual milliseconds between the writer's changes.
    public static func make(
        seed: UInt64? = nil, writerRunning: Bool = true, writerInterval: Milliseconds = 3_000
    ) async throws -> Built {
        let runner = try ScenarioRunner(scenario: try scenario(), seed: seed)
        if let failure = await runner.runToEnd() {
            throw CloudError(.internalError, "The demo world did not build: \(failure)")
        }
        runner.detach()
        let simulation = runner.simulation
        await simulation.settle()

        // Every device whose user sees Notes writes there.
        let container = simulation.setup.container
        var zones: [String: RecordZoneID] = [:]
        for device in simulation.devices {
            let user = device.user
            let sees = simulation.server.withEngine { engine in
                engine.zoneSummaries(user: user, container: container).contains { $0.zoneID == notes }
            }
            if sees { zones[device.name] = notes }
        }
        let writer = DemoWriter(
            seed: runner.seed, interval: writerInterval, writers: simulation.devices.map(\.name).filter { zones[$0] != nil },
            zones: zones, running: writerRunning)
        writer.nextActionTime = simulation.clock.now() + min(writerInterval, 800)
        simulation.writer = writer
        let every = writerInterval % 1000 == 0 ? "\(writerInterval / 1000) s" : "\(Double(writerInterval) / 1000) s"
        simulation.note("demo ready: the writer changes a note every \(every)")
        return Built(simulation: simulation, runner: runner)
    }
}
