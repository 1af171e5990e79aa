import Foundation
import SyncCore
import SyncInspector
import SyncInspectorWorlds
import SyncServer
import SyncSimulation
import SyncWorlds

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inspector's benchmarks, on a zone of `records` records (100,000 for
/// the stated goals) that keeps changing: what one change costs the records
/// pane, what a frame costs meanwhile, and what the live loop costs with a
/// writer saving 1,000 changes a second into that zone.
struct InspectorBenchmarkSuite {
    /// Records in the zone on screen (the goals are stated for 100,000).
    var records: Int
    /// Real seconds the live loop runs with the writer at 1,000 changes per second.
    var liveSeconds: Double
    /// Only the live loop's figures, with the Mac fetching (to profile it).
    var liveOnly = false
    /// The screen every figure draws.
    var size = Size(width: 160, height: 48)

    func run() async throws -> [BenchmarkFigure] {
        let n = BenchmarkResults.grouped(records)
        if liveOnly { return liveFigures(try await liveLoop(macFetchesOnPush: true), n: n) }
        let watch = try ServerWatchBenchmarks(size: size).run()
        let pane = try await recordsPane()
        let live = try await liveLoop(macFetchesOnPush: true)
        let serverOnly = try await liveLoop(macFetchesOnPush: false)
        return [
            BenchmarkFigure(
                key: "records_update_ms_100k", label: "records pane: one change applied, \(n) records",
                value: pane.updateMs, unit: "ms", goal: .atMost(5)),
            BenchmarkFigure(
                key: "records_update_max_ms_100k", label: "  slowest of \(pane.updates) (edits, new records, deletions)",
                value: pane.updateMaxMs, unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "records_rebuild_ms_100k", label: "  rows read from scratch (zone switch, expiry)",
                value: pane.rebuildMs, unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "frame_ms_100k_records", label: "inspector frame, \(n) records, zone changing",
                value: pane.frameMs, unit: "ms", goal: .atMost(2)),
        ] + liveFigures(live, n: n) + [
            BenchmarkFigure(
                key: "live_cpu_percent_mac_not_fetching", label: "live loop CPU, the Mac on screen not fetching",
                value: serverOnly.cpuPercent, unit: "%", goal: nil),
            BenchmarkFigure(
                key: "live_world_cpu_percent_mac_not_fetching", label: "  the same world and writer, no inspector",
                value: serverOnly.worldCPUPercent, unit: "%", goal: nil),
            BenchmarkFigure(
                key: "live_changes_per_s_mac_not_fetching", label: "  changes the writer made per second",
                value: serverOnly.changesPerSecond, unit: "/s", goal: nil),
        ] + watch
    }

    /// The live loop's figures (the Mac on screen fetching on push).
    private func liveFigures(
        _ live: LiveLoopFigures, n: String
    ) -> [BenchmarkFigure] {
        [
            BenchmarkFigure(
                key: "live_cpu_percent", label: "live loop CPU, 1,000 changes/s, \(n) records",
                value: live.cpuPercent, unit: "%", goal: .atMost(10)),
            BenchmarkFigure(
                key: "live_world_cpu_percent", label: "  the same world and writer, no inspector",
                value: live.worldCPUPercent, unit: "%", goal: nil),
            BenchmarkFigure(
                key: "live_changes_per_s", label: "  changes the writer made per second", value: live.changesPerSecond,
                unit: "/s", goal: nil),
            BenchmarkFigure(
                key: "live_fps_at_1000_changes_per_s", label: "  inspector frames/s meanwhile", value: live.fps, unit: "fps", goal: nil),
            BenchmarkFigure(
                key: "live_record_rebuilds", label: "  rows read from scratch after the first",
                value: Double(live.rebuilds), unit: "", goal: nil),
            BenchmarkFigure(
                key: "live_mac_fetches_per_s", label: "  fetch runs of the Mac on screen per second (on push)",
                value: live.macFetchesPerSecond, unit: "/s", goal: nil),
        ]
    }

    // MARK: The world

    private struct BigZone {
        var simulation: Simulation
        /// Writes (and never fetches, so its copy stays small).
        var iPhone: SyncDevice
        /// Holds every record; the device on screen.
        var mac: SyncDevice
        var zone: RecordZoneID
    }

    /// A zone of `records` records saved from the iPhone, fetched by the Mac.
    private func bigZone() async throws -> BigZone {
        let simulation = try Simulation(setup: SimulationSetup(
            seed: 7, users: ["bench"],
            devices: [.init(name: "iPhone", user: "bench", autoFetchOnPush: false), .init(name: "Mac", user: "bench")]))
        guard let iPhone = simulation.device(named: "iPhone"), let mac = simulation.device(named: "Mac") else {
            throw BenchmarkError("the inspector benchmark's devices are missing")
        }
        let zone = RecordZoneID(zoneName: "Big", ownerName: "bench")
        if let error = await simulation.createZone("Big", on: iPhone).error { throw BenchmarkError("create zone: \(error)") }
        var next = 0
        while next < records {
            let count = min(400, records - next)
            try await modify(iPhone, zone: zone, (next..<(next + count)).map { i in
                RecordOperation(type: .forceReplace, record: item(i, zone: zone, title: "Item \(i)"))
            })
            next += count
        }
        if let error = await simulation.fetch(on: mac).error { throw BenchmarkError("fetch: \(error)") }
        // The user's database subscription: the push service tells the Mac
        // (not the iPhone, which makes the changes) that something changed.
        if let error = await simulation.subscribe(.database(DatabaseSubscription(subscriptionID: "private-changes")), in: .private, on: mac).error {
            throw BenchmarkError("subscribe: \(error)")
        }
        guard mac.cachedRecordCount(in: zone) == records else {
            throw BenchmarkError("the device cached \(mac.cachedRecordCount(in: zone)) records, expected \(records)")
        }
        return BigZone(simulation: simulation, iPhone: iPhone, mac: mac, zone: zone)
    }

    private func item(_ i: Int, zone: RecordZoneID, title: String, suffix: String = "") -> Record {
        Record(
            recordID: RecordID(recordName: "r\(100_000_000 + i)\(suffix)", zoneID: zone), recordType: "Item",
            fields: ["title": .string(title), "group": .string("g\(i % 13)")])
    }

    /// Saves or deletes on the server as another client would (no device's cache involved).
    private func modify(_ device: SyncDevice, zone: RecordZoneID, _ operations: [RecordOperation]) async throws {
        for result in try await device.connection.modifyRecords(in: .private, zoneID: zone, operations: operations) {
            if case .failure(let error) = result { throw BenchmarkError("modifying records: \(error)") }
        }
    }

    // MARK: The records pane

    /// The Mac's records pane on the big zone (the clock paused: only the
    /// changes made here happen). One change at a time (a save of an
    /// existing record, a new record, a deletion, in turn, all in the middle
    /// of the list) then one timed refresh; frames timed while the zone keeps
    /// changing and the Mac fetches now and then.
    func recordsPane() async throws -> (updateMs: Double, updateMaxMs: Double, updates: Int, rebuildMs: Double, frameMs: Double) {
        let world = try await bigZone()
        let (simulation, iPhone, mac, zone) = (world.simulation, world.iPhone, world.mac, world.zone)
        let controller = await InspectorController(simulation: simulation, paused: true, screenSize: size, realClock: SystemClock())
        await controller.handle(.character("2"))  // the Mac
        guard controller.state.snapshot.records.count == records else {
            throw BenchmarkError("the records pane lists \(controller.state.snapshot.records.count) rows, expected \(records)")
        }

        // One change, then one refresh, timed.
        var updates: [Double] = []
        var step = 0
        func change() async throws -> (name: String, title: String?) {
            step += 1
            let i = (step * 7_919) % records
            switch step % 3 {
            case 0:
                let title = "edit \(step)"
                try await modify(iPhone, zone: zone, [RecordOperation(type: .forceReplace, record: item(i, zone: zone, title: title))])
                return ("r\(100_000_000 + i)", title)
            case 1:
                let title = "new \(step)"
                try await modify(iPhone, zone: zone, [RecordOperation(type: .forceReplace, record: item(i, zone: zone, title: title, suffix: "-new"))])
                return ("r\(100_000_000 + i)-new", title)
            default:
                try await modify(iPhone, zone: zone, [RecordOperation(type: .forceDelete, record: item(i, zone: zone, title: ""))])
                return ("r\(100_000_000 + i)", nil)
            }
        }
        for _ in 0..<60 {
            let (name, title) = try await change()
            let start = ContinuousClock.now
            await controller.refresh()
            updates.append(ContinuousClock.now.seconds(since: start) * 1000)
            let row = controller.state.snapshot.records.rows.first { $0.name == name }
            let shown = row?.server.flatMap { record -> String? in
                if case .string(let s)? = record["title"] { return s }
                return nil
            }
            guard shown == title else {
                throw BenchmarkError("after a change to \(name) the records pane shows \(shown ?? "no server version"), expected \(title ?? "none")")
            }
        }

        // Reading the rows from scratch, as a zone switch does (the model alone, median of 5).
        var rebuilds: [Double] = []
        let key = ZoneKey(scope: .private, zoneID: zone)
        let observer = InProcessServerObserver(server: simulation.server, container: simulation.container)
        for _ in 0..<5 {
            let summary = simulation.server.withEngine { engine in
                engine.zoneSummaries(user: "bench", container: simulation.container).first { $0.zoneID == zone }
            }
            var model = RecordRowsModel()
            var list = RecordList()
            let start = ContinuousClock.now
            model.update(
                &list, of: RecordRowsModel.Source(zone: key, device: mac.name),
                mark: RecordRowsModel.ServerMark(token: summary?.currentToken, lastSequence: summary?.lastSequence, recordCount: summary?.recordCount),
                deviceToken: mac.cachedZoneToken(for: zone), device: SyncDeviceRecords(device: mac, zone: key)
            ) { observer.answerNow($0, zone: key, user: "bench", environment: mac.environment) }
            rebuilds.append(ContinuousClock.now.seconds(since: start) * 1000)
            guard list.count == controller.state.snapshot.records.count else {
                throw BenchmarkError("a rebuild gave \(list.count) rows, the updated pane \(controller.state.snapshot.records.count)")
            }
        }

        // Frames while the zone changes: a change before every frame (not
        // timed, nor the refresh), the Mac fetching every 20th, a page down every 10th.
        var samples: [Double] = []
        for i in 0..<400 {
            _ = try await change()
            if i % 20 == 19, let error = await simulation.fetch(on: mac).error { throw BenchmarkError("fetch: \(error)") }
            if i % 10 == 0 { await controller.handle(.pageDown) }
            await controller.refresh()
            let start = ContinuousClock.now
            let buffer = controller.frame(size: size)
            samples.append(ContinuousClock.now.seconds(since: start) * 1000)
            guard buffer.size == size else { throw BenchmarkError("the frame has the wrong size") }
        }
        return (Self.median(updates), updates.max() ?? .nan, updates.count, Self.median(rebuilds), Self.median(samples))
    }

    // MARK: The live loop

    /// The big zone with a writer on the iPhone making a change every
    /// millisecond; the Mac, subscribed to the user's private database,
    /// fetches on push (a few times a second: pushes coalesce for 200 ms;
    /// the bench checks that it did). First the world alone for
    /// `liveSeconds` (advanced once a frame, as the loop does), then a fresh
    /// copy of it under the real inspector loop at speed 1 on the Mac, on a
    /// terminal that only diffs frames. CPU is this process's user + system
    /// time over wall time.
    ///
    /// With `macFetchesOnPush` false the Mac keeps its copy as it is: every
    /// change reaches the records pane from the server's side only, and the
    /// world's cost leaves out the Mac's fetches.
    func liveLoop(macFetchesOnPush: Bool) async throws -> LiveLoopFigures {
        /// A fresh big zone with the writer: each run starts from the same state
        /// (the writer's own copy grows as it writes, and it reads it for every change).
        func writingWorld() async throws -> (BigZone, DemoWriter) {
            let world = try await bigZone()
            world.mac.engine.autoFetchOnPush = macFetchesOnPush
            let writer = DemoWriter(seed: 7, interval: 1, writers: [world.iPhone.name], zones: [world.iPhone.name: world.zone])
            writer.nextActionTime = world.simulation.clock.now() + 1
            world.simulation.writer = writer
            return (world, writer)
        }
        /// The Mac must have fetched when it is said to (and not otherwise): the figures say what they measure.
        func checkFetches(_ runs: Int, seconds: Double) throws {
            if macFetchesOnPush && runs < Int(seconds) {
                throw BenchmarkError("the Mac fetched \(runs) times in \(seconds) s on push; expected several a second")
            }
            if !macFetchesOnPush && runs > 0 { throw BenchmarkError("the Mac fetched \(runs) times though it does not fetch on push") }
        }

        // The world alone, advanced once a frame as the loop does.
        let (alone, _) = try await writingWorld()
        let frame = InspectorController.defaultFrameInterval
        let aloneRunsBefore = alone.mac.engine.fetchRuns.count
        let worldStart = ContinuousClock.now
        let worldCPU = Self.cpuSeconds()
        var last = worldStart
        while ContinuousClock.now.seconds(since: worldStart) < liveSeconds {
            usleep(useconds_t(frame * 1_000))
            let now = ContinuousClock.now
            await alone.simulation.advance(by: Milliseconds(min(500, now.seconds(since: last) * 1000)))
            last = now
        }
        let worldPercent = (Self.cpuSeconds() - worldCPU) / ContinuousClock.now.seconds(since: worldStart) * 100
        try checkFetches(alone.mac.engine.fetchRuns.count - aloneRunsBefore, seconds: liveSeconds)

        // The same world, fresh, under the inspector.
        let (world, writer) = try await writingWorld()
        let controller = await InspectorController(
            simulation: world.simulation, paused: false, speed: 1, screenSize: size, realClock: SystemClock())
        await controller.handle(.character("2"))  // the Mac
        let backend = HeadlessTerminal(size: size, seconds: liveSeconds)
        let actionsBefore = writer.actions
        let rebuildsBefore = controller.recordListBuilds
        let runsBefore = world.mac.engine.fetchRuns.count
        let cpuBefore = Self.cpuSeconds()
        let start = ContinuousClock.now
        try await controller.run(backend: backend)
        let wall = ContinuousClock.now.seconds(since: start)
        let cpu = Self.cpuSeconds() - cpuBefore
        let changes = writer.actions - actionsBefore
        let runs = world.mac.engine.fetchRuns.count - runsBefore
        try checkFetches(runs, seconds: liveSeconds)
        return LiveLoopFigures(
            cpuPercent: cpu / wall * 100, worldCPUPercent: worldPercent, changesPerSecond: Double(changes) / wall,
            fps: Double(backend.draws) / wall, rebuilds: controller.recordListBuilds - rebuildsBefore,
            macFetchesPerSecond: Double(runs) / wall)
    }

    struct LiveLoopFigures {
        var cpuPercent: Double
        var worldCPUPercent: Double
        var changesPerSecond: Double
        var fps: Double
        var rebuilds: Int
        /// The Mac's fetch runs (each after a push) per second.
        var macFetchesPerSecond: Double
    }

    /// User and system time of this process, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        return values.sorted()[values.count / 2]
    }
}
