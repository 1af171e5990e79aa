import Foundation
import SyncCore
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
        var replayCeiling: Double
        var checkpoint: Double
        var checkpointCeiling: Double
        var replayedRows: Int
        var checkpointBytes: Int
    }

    func run() throws -> [BenchmarkFigure] {
        let large = try measure(records: records)
        let small = try measure(records: records / 4)
        let size = Self.shortCount(records)
        let quarter = Self.shortCount(records / 4)
        return [
            BenchmarkFigure(
                key: "restart_\(size)_replay_s", label: "restart, \(size) records in \(large.replayedRows) journal rows (after kill -9)",
                value: large.replay, unit: "s", goal: .atMost(2)),
            BenchmarkFigure(
                key: "restart_\(size)_replay_ceiling_s", label: "  reading and parsing those rows", value: large.replayCeiling, unit: "s", goal: nil),
            BenchmarkFigure(
                key: "restart_\(size)_replay_ceiling_ratio", label: "  ceiling / restart", value: large.replayCeiling / large.replay, unit: "×", goal: nil),
            BenchmarkFigure(
                key: "restart_replay_growth", label: "  restart \(size) / restart \(quarter) (linear: 4)", value: large.replay / small.replay, unit: "×",
                goal: .atMost(5)),
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
                key: "restart_checkpoint_growth", label: "  restart \(size) / restart \(quarter) (linear: 4)", value: large.checkpoint / small.checkpoint,
                unit: "×", goal: .atMost(5)),
        ]
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

    func measure(records: Int) throws -> Measured {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-restart-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let crashed = base.appendingPathComponent("crashed")
        let stopped = base.appendingPathComponent("stopped")
        try fill(crashed, records: records)

        // Replay: every record is in journal rows.
        var replay: [Double] = []
        var replayCeiling: [Double] = []
        var replayedRows = 0
        for round in 0..<3 {
            let copy = try Self.copy(crashed, to: base.appendingPathComponent("replay-\(round)"))
            let start = ContinuousClock.now
            let host = try ServerHost(options: options(copy))
            replay.append(ContinuousClock.now.seconds(since: start))
            guard host.startupReport.contains("replayed") else { throw BenchmarkError("the restart replayed nothing: \(host.startupReport)") }
            // The checkpoint of the replayed rows is written after start-up, by
            // the group committer's checkpoint thread: let it finish before the ceiling is timed.
            host.stop()
            if round == 2 { try Self.copy(copy, to: stopped) }
            let fresh = try Self.copy(crashed, to: base.appendingPathComponent("replay-ceiling-\(round)"))
            let ceilingStart = ContinuousClock.now
            replayedRows = try DataFolderReading.readAndParseJournal(in: fresh)
            replayCeiling.append(ContinuousClock.now.seconds(since: ceilingStart))
        }

        // Checkpoint: a clean stop left one and no rows after it.
        var checkpoint: [Double] = []
        var checkpointCeiling: [Double] = []
        var bytes = 0
        for round in 0..<3 {
            let copy = try Self.copy(stopped, to: base.appendingPathComponent("checkpoint-\(round)"))
            let start = ContinuousClock.now
            let host = try ServerHost(options: options(copy))
            checkpoint.append(ContinuousClock.now.seconds(since: start))
            guard host.startupReport == "restored the checkpoint" else {
                throw BenchmarkError("the restart did not come from the checkpoint alone: \(host.startupReport)")
            }
            let fresh = try Self.copy(stopped, to: base.appendingPathComponent("checkpoint-ceiling-\(round)"))
            let ceilingStart = ContinuousClock.now
            bytes = try DataFolderReading.readAndParseCheckpoint(in: fresh)
            checkpointCeiling.append(ContinuousClock.now.seconds(since: ceilingStart))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Measured(
            replay: median(replay), replayCeiling: median(replayCeiling), checkpoint: median(checkpoint),
            checkpointCeiling: median(checkpointCeiling), replayedRows: replayedRows, checkpointBytes: bytes)
    }

    /// A folder holding `records` records in one zone, saved `recordsPerCall` a call, with no checkpoint.
    private func fill(_ directory: URL, records: Int) throws {
        let host = try ServerHost(options: options(directory))
        let path = "/database/1/\(container)/development/private/"
        func post(_ operation: String, _ body: String) throws {
            let answer = host.perform(APICall(method: "POST", path: path + operation, body: Data(body.utf8), user: "bench"))
            guard answer.status == 200, !String(decoding: answer.body, as: UTF8.self).contains("serverErrorCode") else {
                throw BenchmarkError("filling the folder failed: \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
        }
        try post("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Restart"}}}]}"#)
        var next = 0
        while next < records {
            let count = min(recordsPerCall, records - next)
            let operations = (next..<(next + count)).map { (n: Int) -> String in
                #"{"operationType":"create","record":{"recordName":"r\#(n)","recordType":"Note","fields":{"title":{"type":"STRING","value":"Note number \#(n)"},"n":{"type":"INT64","value":\#(n)},"done":{"type":"INT64","value":\#(n % 2)}}}}"#
            }.joined(separator: ",")
            try post("records/modify", #"{"zoneID":{"zoneName":"Restart"},"atomic":false,"operations":[\#(operations)]}"#)
            next += count
        }
        // No clean stop: the rows stay in the journal, as after kill -9 (the host goes without a checkpoint).
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
