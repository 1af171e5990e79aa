import Foundation
import SyncCore
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// Restart figures, each beside its limit measured in the same run:
///
/// - replay: a data folder whose records are all in journal rows (as a
///   `kill -9` leaves it: no checkpoint) opened by a new server, against
///   reading and parsing those journal rows;
/// - checkpoint: a folder a clean stop left (a checkpoint, no rows after
///   it), against reading and parsing the checkpoint.
///
/// Each is timed on a fresh copy of the folder (median of three), at the
/// full size and at a quarter of it, so the growth with the data shows.
struct RestartBenchmarks {
    /// Records in the large folder.
    var records: Int
    /// Records per `records/modify` call (per journal row).
    var recordsPerCall = 100
    let container = "iCloud.com.example.SyncScopeBench"

    struct Measured {
        var replay: Double
        var replayCPU: Double
        var replayCeiling: Double
        var checkpoint: Double
        var checkpointCPU: Double
        var checkpointCeiling: Double
        var replayedRows: Int
        var checkpointBytes: Int
    }

    func run() async throws -> [BenchmarkFigure] {
        let large = try await measure(records: records)
        let half = try await measure(records: records / 2, ceilings: false)
        let small = try await measure(records: records / 4, ceilings: false)
        let size = Self.shortCount(records)
        let linear = Double(records) / Double(records / 4)
        let linearHalf = Double(records) / Double(records / 2)
        var figures = [
            BenchmarkFigure(
                key: "restart_\(size)_replay_s", label: "restart, \(size) records in \(large.replayedRows) journal rows (after kill -9)",
                value: large.replay, unit: "s", goal: .atMost(2)),
            BenchmarkFigure(
                key: "restart_\(size)_replay_ceiling_s", label: "  reading and parsing those rows", value: large.replayCeiling, unit: "s", goal: nil),
            BenchmarkFigure(
                key: "restart_\(size)_replay_ceiling_ratio", label: "  ceiling / restart", value: large.replayCeiling / large.replay, unit: "×", goal: nil),
            BenchmarkFigure(
                key: "restart_replay_growth", label: "  restart \(size) / restart \(Self.shortCount(records / 4)) (linear: \(Self.ratio(linear)))",
                value: large.replay / small.replay, unit: "×", goal: .atMost(linear * 1.25)),
        ]
        figures += growthFigures("replay", (large.replay, half.replay, small.replay), (large.replayCPU, half.replayCPU, small.replayCPU))
        figures += [
            BenchmarkFigure(
                key: "restart_\(size)_checkpoint_s",
                label: "restart, \(size) records from a checkpoint (\(BenchmarkResults.grouped(large.checkpointBytes / 1024)) KiB)", value: large.checkpoint,
                unit: "s", goal: .atMost(2)),
            BenchmarkFigure(
                key: "restart_\(size)_checkpoint_ceiling_s", label: "  reading and parsing the checkpoint", value: large.checkpointCeiling, unit: "s",
                goal: nil),
            BenchmarkFigure(
                key: "restart_\(size)_checkpoint_ceiling_ratio", label: "  ceiling / restart", value: large.checkpointCeiling / large.checkpoint,
                unit: "×", goal: nil),
            BenchmarkFigure(
                key: "restart_checkpoint_growth", label: "  restart \(size) / restart \(Self.shortCount(records / 4)) (linear: \(Self.ratio(linear)))",
                value: large.checkpoint / small.checkpoint, unit: "×", goal: .atMost(linear * 1.25)),
        ]
        figures += growthFigures(
            "checkpoint", (large.checkpoint, half.checkpoint, small.checkpoint), (large.checkpointCPU, half.checkpointCPU, small.checkpointCPU))
        figures.append(BenchmarkFigure(
            key: "restart_growth_linear", label: "linear growth, full / quarter (the reference for the ratios above)", value: linear, unit: "×", goal: nil))
        figures.append(BenchmarkFigure(key: "restart_growth_half_linear", label: "  (full / half)", value: linearHalf, unit: "×", goal: nil))
        return figures
    }

    /// The cost per record at each size (wall time), and the growth from half and from a quarter of the records
    /// to all of them, in wall and in CPU time (the start-up thread's: it shows
    /// the work the restart does, whatever else the machine runs meanwhile).
    private func growthFigures(
        _ kind: String, _ wall: (Double, Double, Double), _ cpu: (Double, Double, Double)
    ) -> [BenchmarkFigure] {
        let counts = (records, records / 2, records / 4)
        func us(_ seconds: Double, _ n: Int) -> Double { seconds / Double(n) * 1e6 }
        let linear = Double(records) / Double(records / 4)
        let linearHalf = Double(records) / Double(records / 2)
        return [
            BenchmarkFigure(
                key: "restart_\(kind)_us_per_record", label: "  µs per record at \(Self.shortCount(records)) (wall; linear: the same at each size)",
                value: us(wall.0, counts.0), unit: "µs", goal: nil),
            BenchmarkFigure(key: "restart_\(kind)_us_per_record_half", label: "  µs per record at \(Self.shortCount(records / 2))", value: us(wall.1, counts.1), unit: "µs", goal: nil),
            BenchmarkFigure(key: "restart_\(kind)_us_per_record_quarter", label: "  µs per record at \(Self.shortCount(records / 4))", value: us(wall.2, counts.2), unit: "µs", goal: nil),
            BenchmarkFigure(
                key: "restart_growth_\(kind)_half", label: "  restart full / half (linear: \(Self.ratio(linearHalf)))", value: wall.0 / wall.1,
                unit: "×", goal: nil),
            BenchmarkFigure(
                key: "restart_growth_\(kind)_cpu", label: "  CPU time full / quarter (linear: \(Self.ratio(linear)))", value: cpu.0 / cpu.2,
                unit: "×", goal: .atMost(linear * 1.25)),
            BenchmarkFigure(
                key: "restart_growth_\(kind)_cpu_half", label: "  CPU time full / half (linear: \(Self.ratio(linearHalf)))", value: cpu.0 / cpu.1,
                unit: "×", goal: nil),
        ]
    }

    static func ratio(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    /// The CPU time the calling thread has used so far, user and system: the
    /// start-up's own work (the journal's writer thread, which writes the
    /// checkpoint after start-up, is not counted).
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// 200000 → "200k".
    static func shortCount(_ n: Int) -> String {
        n % 1000 == 0 ? "\(n / 1000)k" : "\(n)"
    }

    func options(_ directory: URL) -> ServeOptions {
        ServeOptions(
            host: "127.0.0.1", port: 0, dataDirectory: directory, users: ["bench"], coalescingWindow: 0, seed: 7, quiet: true,
            checkpointEvery: Int.max)
    }

    func measure(records: Int, ceilings: Bool = true) async throws -> Measured {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-restart-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let crashed = base.appendingPathComponent("crashed")
        let stopped = base.appendingPathComponent("stopped")
        // The filling host is never stopped, as after kill -9; it is kept until the
        // copies are made, so it cannot close the database (folding the WAL away) under a copy.
        let filler = try await fill(crashed, records: records)
        defer { withExtendedLifetime(filler) {} }

        // Replay: every record is in journal rows.
        var replay: [Double] = []
        var replayCPU: [Double] = []
        var replayCeiling: [Double] = []
        var replayedRows = 0
        for round in 0..<3 {
            let copy = try Self.copy(crashed, to: base.appendingPathComponent("replay-\(round)"))
            let (cpuStart, start) = (Self.threadCPUSeconds(), ContinuousClock.now)
            let host = try await ServerHost.start(options: options(copy))
            replay.append(ContinuousClock.now.seconds(since: start))
            replayCPU.append(Self.threadCPUSeconds() - cpuStart)
            guard host.startupReport.contains("replayed") else { throw BenchmarkError("the restart replayed nothing: \(host.startupReport)") }
            // The checkpoint of the replayed rows is written after start-up, by
            // the group committer's checkpoint thread: let it finish before the ceiling is timed.
            await host.stop()
            if round == 2 { try Self.copy(copy, to: stopped) }
            guard ceilings else { continue }
            let fresh = try Self.copy(crashed, to: base.appendingPathComponent("replay-ceiling-\(round)"))
            let ceilingStart = ContinuousClock.now
            replayedRows = try DataFolderReading.readAndParseJournal(in: fresh)
            replayCeiling.append(ContinuousClock.now.seconds(since: ceilingStart))
        }

        // Checkpoint: a clean stop left one and no rows after it.
        var checkpoint: [Double] = []
        var checkpointCPU: [Double] = []
        var checkpointCeiling: [Double] = []
        var bytes = 0
        for round in 0..<3 {
            let copy = try Self.copy(stopped, to: base.appendingPathComponent("checkpoint-\(round)"))
            let (cpuStart, start) = (Self.threadCPUSeconds(), ContinuousClock.now)
            let host = try await ServerHost.start(options: options(copy))
            checkpoint.append(ContinuousClock.now.seconds(since: start))
            checkpointCPU.append(Self.threadCPUSeconds() - cpuStart)
            guard host.startupReport == "restored the checkpoint" else {
                throw BenchmarkError("the restart did not come from the checkpoint alone: \(host.startupReport)")
            }
            guard ceilings else { continue }
            let fresh = try Self.copy(stopped, to: base.appendingPathComponent("checkpoint-ceiling-\(round)"))
            let ceilingStart = ContinuousClock.now
            bytes = try DataFolderReading.readAndParseCheckpoint(in: fresh)
            checkpointCeiling.append(ContinuousClock.now.seconds(since: ceilingStart))
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        return Measured(
            replay: median(replay), replayCPU: median(replayCPU), replayCeiling: median(replayCeiling), checkpoint: median(checkpoint),
            checkpointCPU: median(checkpointCPU), checkpointCeiling: median(checkpointCeiling), replayedRows: replayedRows, checkpointBytes: bytes)
    }

    /// A folder holding `records` records in one zone, saved `recordsPerCall` a
    /// call, with no checkpoint; and the host that filled it, still open.
    private func fill(_ directory: URL, records: Int) async throws -> ServerHost {
        let host = try await ServerHost.start(options: options(directory))
        let path = "/database/1/\(container)/development/private/"
        func post(_ operation: String, _ body: String) async throws {
            let answer = await host.perform(APICall(method: "POST", path: path + operation, body: Data(body.utf8), user: "bench"))
            guard answer.status == 200, !String(decoding: answer.body, as: UTF8.self).contains("serverErrorCode") else {
                throw BenchmarkError("filling the folder failed: \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
        }
        try await post("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Restart"}}}]}"#)
        var next = 0
        while next < records {
            let count = min(recordsPerCall, records - next)
            let operations = (next..<(next + count)).map { (n: Int) -> String in
                #"{"operationType":"create","record":{"recordName":"r\#(n)","recordType":"Note","fields":{"title":{"type":"STRING","value":"Note number \#(n)"},"n":{"type":"INT64","value":\#(n)},"done":{"type":"INT64","value":\#(n % 2)}}}}"#
            }.joined(separator: ",")
            try await post("records/modify", #"{"zoneID":{"zoneName":"Restart"},"atomic":false,"operations":[\#(operations)]}"#)
            next += count
        }
        // No clean stop: the rows stay in the journal, as after kill -9 (the host goes without a checkpoint).
        return host
    }

    /// Copies the data folder's files (the database with its WAL, and the users' and admin files).
    @discardableResult
    static func copy(_ folder: URL, to destination: URL) throws -> URL {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: folder.path) where !name.hasSuffix(".lock") {
            try manager.copyItem(at: folder.appendingPathComponent(name), to: destination.appendingPathComponent(name))
        }
        return destination
    }
}
