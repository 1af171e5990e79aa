import Foundation
import SyncCore
import SyncInspector
import SyncInspectorWorlds
import SyncServer
import SyncSimulation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inspector's benchmarks: what one frame costs with a huge zone on
/// screen, and how the live loop keeps up with a fast writer.
struct InspectorBenchmarkSuite {
    /// Records in the zone shown for the frame figure (the goal is stated for 100,000).
    var records: Int
    /// Real seconds the live loop runs with the writer at 1,000 changes per second.
    var liveSeconds: Double
    /// The screen both figures draw.
    var size = Size(width: 160, height: 48)

    func run() async throws -> [BenchmarkFigure] {
        let frame = try await frameCost()
        let live = try await liveLoop()
        return [
            BenchmarkFigure(
                key: "frame_ms_100k_records", label: "inspector frame, \(BenchmarkResults.grouped(records)) records in the zone",
                value: frame.frameMs, unit: "ms", goal: .atMost(2)),
            BenchmarkFigure(
                key: "records_rebuild_ms_100k", label: "  sorted record rows rebuilt after a change",
                value: frame.rebuildMs, unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "live_fps_at_1000_changes_per_s", label: "inspector frames/s, writer at 1,000 changes/s",
                value: live.fps, unit: "fps", goal: nil),
            BenchmarkFigure(key: "live_cpu_percent", label: "  CPU used meanwhile", value: live.cpuPercent, unit: "%", goal: nil),
            BenchmarkFigure(
                key: "live_changes_per_s", label: "  changes the simulation made per second", value: live.changesPerSecond,
                unit: "/s", goal: nil),
        ]
    }

    // MARK: One frame

    /// A device with `records` records fetched into its cache, the zone on
    /// screen; the median time of `view → cell buffer` while scrolling through it.
    func frameCost() async throws -> (frameMs: Double, rebuildMs: Double) {
        let simulation = try Simulation(setup: SimulationSetup(
            seed: 7, users: ["bench"], devices: [.init(name: "iPhone", user: "bench"), .init(name: "Mac", user: "bench")]))
        guard let iPhone = simulation.device(named: "iPhone"), let mac = simulation.device(named: "Mac") else {
            throw BenchmarkError("the inspector benchmark's devices are missing")
        }
        let zone = RecordZoneID(zoneName: "Big", ownerName: "bench")
        if let error = await simulation.createZone("Big", on: iPhone).error { throw BenchmarkError("create zone: \(error)") }
        var next = 0
        while next < records {
            let count = min(400, records - next)
            let operations = (next..<(next + count)).map { i in
                RecordOperation(type: .forceReplace, record: Record(
                    recordID: RecordID(recordName: "r\(100_000_000 + i)", zoneID: zone), recordType: "Item",
                    fields: ["title": .string("Item \(i)"), "group": .string("g\(i % 13)")]))
            }
            for result in try await iPhone.connection.modifyRecords(in: .private, zoneID: zone, operations: operations) {
                if case .failure(let error) = result { throw BenchmarkError("saving records: \(error)") }
            }
            next += count
        }
        if let error = await simulation.fetch(on: mac).error { throw BenchmarkError("fetch: \(error)") }
        guard mac.cachedRecords(in: zone).count == records else {
            throw BenchmarkError("the device cached \(mac.cachedRecords(in: zone).count) records, expected \(records)")
        }

        let controller = await InspectorController(simulation: simulation, paused: true, screenSize: size, realClock: SystemClock())
        await controller.handle(.character("2"))  // the Mac
        guard controller.state.snapshot.records.count == records else {
            throw BenchmarkError("the records pane lists \(controller.state.snapshot.records.count) rows, expected \(records)")
        }
        // Rebuilding the rows: a change in the zone, then one refresh.
        var rebuilds: [Double] = []
        for i in 0..<5 {
            await simulation.save(
                Record(recordID: RecordID(recordName: "r\(100_000_000 + i)", zoneID: zone), recordType: "Item", fields: ["title": .string("edit \(i)")]),
                on: iPhone)
            let start = ContinuousClock.now
            await controller.refresh()
            rebuilds.append(ContinuousClock.now.seconds(since: start) * 1000)
        }
        // Frames while scrolling: a page down (not timed) every ten frames.
        var samples: [Double] = []
        for i in 0..<400 {
            if i % 10 == 0 { await controller.handle(.pageDown) }
            let start = ContinuousClock.now
            let buffer = controller.frame(size: size)
            samples.append(ContinuousClock.now.seconds(since: start) * 1000)
            guard buffer.size == size else { throw BenchmarkError("the frame has the wrong size") }
        }
        return (Self.median(samples), Self.median(rebuilds))
    }

    // MARK: The live loop

    /// The demo world with its writer making a change every millisecond,
    /// run by the real loop at speed 1 on a terminal that only diffs frames.
    func liveLoop() async throws -> (fps: Double, cpuPercent: Double, changesPerSecond: Double) {
        let world = try await DemoWorld.make(writerRunning: true, writerInterval: 1)
        // The devices with in-memory caches write: the writer reads its device's whole cache for
        // every change it makes, which on the Mac's SQLite store would measure SQLite, not the inspector.
        world.simulation.writer?.writers = world.simulation.devices.filter { $0.store is InMemoryLocalStore }.map(\.name)
        let controller = await InspectorController(
            simulation: world.simulation, keepAlive: world.runner, paused: false, speed: 1, screenSize: size, realClock: SystemClock())
        let backend = HeadlessTerminal(size: size, seconds: liveSeconds)
        let actionsBefore = world.simulation.writer?.actions ?? 0
        let cpuBefore = Self.cpuSeconds()
        let start = ContinuousClock.now
        try await controller.run(backend: backend)
        let wall = ContinuousClock.now.seconds(since: start)
        let cpu = Self.cpuSeconds() - cpuBefore
        let changes = (world.simulation.writer?.actions ?? 0) - actionsBefore
        return (Double(backend.draws) / wall, cpu / wall * 100, Double(changes) / wall)
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

/// A terminal that keeps no screen: it diffs each frame against the last (as
/// the real backend does before calling curses), sleeps in `readKey` as long
/// as it is asked to, and presses `q` when its time is up.
final class HeadlessTerminal: TerminalBackend {
    let size: Size
    private(set) var draws = 0
    private var previous: CellBuffer?
    private let deadline: ContinuousClock.Instant

    init(size: Size, seconds: Double) {
        self.size = size
        deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, seconds) * 1e9))
    }

    func draw(_ buffer: CellBuffer) throws(TerminalError) {
        _ = buffer.diff(from: previous)
        previous = buffer
        draws += 1
    }

    func invalidate() { previous = nil }

    func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        let now = ContinuousClock.now
        guard now < deadline else { return .character("q") }
        let left = UInt64(deadline.seconds(since: now) * 1e6)
        let wait = timeoutMs < 0 ? left : min(left, UInt64(timeoutMs) * 1_000)
        usleep(useconds_t(min(wait, UInt64(UInt32.max))))
        return nil
    }
}
