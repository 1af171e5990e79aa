import Foundation
import GRDB
@testable import SyncServerHTTP
import SyncCore
import SyncWire
import SyncServer
import Testing

/// Restarts: a clean stop always leaves a checkpoint that makes the next
/// start replay nothing; the checkpoint's binary format reads back exactly,
/// older JSON checkpoints still load, and an unknown version is named; the
/// journal written by concurrent calls (group commit) replays to the same state.
@Suite struct RestartTests {
    let container = "iCloud.com.example.Restarts"
    let manager = FileManager.default

    func options(_ directory: URL, checkpointEvery: Int = 20_000) -> ServeOptions {
        ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 5, quiet: true, checkpointEvery: checkpointEvery)
    }

    func folder() -> URL { manager.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)") }

    func call(_ operation: String, _ json: String) -> APICall {
        APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice")
    }

    func save(_ name: String, _ n: Int) -> APICall {
        call("records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":\#(n)},"tags":{"value":["a","b\#(n)"],"type":"STRING_LIST"},"where":{"value":{"latitude":1.5,"longitude":-2.25},"type":"LOCATION"}}}}]}"#)
    }

    func makeZone(_ host: ServerHost) {
        #expect(host.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)).status == 200)
    }

    func export(_ host: ServerHost) -> Data {
        let answer = host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", body: Data("{}".utf8), isServerAdmin: true))
        #expect(answer.status == 200)
        return answer.body
    }

    func database(_ directory: URL) throws -> DatabaseQueue {
        try DatabaseQueue(path: directory.appendingPathComponent("syncscope.sqlite").path)
    }

    @Test func aCleanStopAfterAReplayLeavesACheckpointSoTheNextStartReplaysNothing() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let state: Data = try {
            // No clean stop: the rows stay in the journal, as after kill -9.
            let host = try ServerHost(options: options(directory))
            makeZone(host)
            for i in 0..<5 { #expect(host.perform(save("r\(i)", i)).status == 200) }
            return export(host)
        }()
        try {
            let replaying = try ServerHost(options: options(directory))
            #expect(replaying.startupReport.contains("replayed"), "\(replaying.startupReport)")
            // Nothing written since start-up, and still the stop leaves a checkpoint.
            #expect(replaying.stop().hasPrefix("state saved"))
        }()
        for _ in 0..<2 {
            let host = try ServerHost(options: options(directory))
            #expect(host.startupReport == "restored the checkpoint", "\(host.startupReport)")
            #expect(export(host) == state)
            host.stop()
        }
        let rows = try { let queue = try database(directory); defer { try? queue.close() }; return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal") } }()
        #expect(rows == 0)
    }

    @Test func theBinaryCheckpointReadsBackAsTheSameStateFile() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let host = try ServerHost(options: options(directory))
        makeZone(host)
        for i in 0..<20 { #expect(host.perform(save("r\(i % 7)", i)).status == 200) }
        let file = host.state.withLock { ServerHost.checkpointFile($0.core) }
        let data = try CheckpointFormat.encode(file)
        #expect(Array(data.prefix(8)) == Array("SSCKPT\r\n".utf8))
        #expect(try CheckpointFormat.decode(data) == file)
        // The same state gives the same bytes.
        #expect(try CheckpointFormat.encode(file) == data)
        // Version 1 (JSON) still reads.
        #expect(try CheckpointFormat.decode(try WireJSON.encode(file)) == file)
        // Cut short anywhere: a sentence, never a crash.
        for cut in [9, 20, data.count / 2, data.count - 1] {
            #expect(throws: (any Error).self) { try CheckpointFormat.decode(data.prefix(cut)) }
        }
    }

    @Test func theChecksumIsCRC32() {
        var contiguous = CRC32()
        Data("123456789".utf8).withUnsafeBytes { contiguous.addBytes($0) }
        var sequence = CRC32()
        sequence.addBytes(Array("123456789".utf8))
        #expect(contiguous.value == 0xCBF4_3926)
        #expect(sequence.value == 0xCBF4_3926)
    }

    /// The checkpoint row rewritten with another state (and its right checksum).
    func replaceCheckpoint(in directory: URL, with state: Data) throws {
        var crc = CRC32()
        crc.add(state)
        let queue = try database(directory)
        try queue.write { db in
            try db.execute(sql: "UPDATE checkpoint SET state = ?, checksum = ? WHERE id = 1", arguments: [state, Int64(crc.value)])
        }
        try queue.close()
    }

    @Test func aJSONCheckpointFromAnOlderServerStillLoads() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let (state, json): (Data, Data) = try {
            try {
                let host = try ServerHost(options: options(directory))
                makeZone(host)
                for i in 0..<5 { #expect(host.perform(save("r\(i)", i)).status == 200) }
                host.stop()
            }()
            let queue = try database(directory)
            let binary = try queue.read { db in try Data.fetchOne(db, sql: "SELECT state FROM checkpoint WHERE id = 1") }
            try queue.close()
            let file = try CheckpointFormat.decode(try #require(binary))
            let reopened = try ServerHost(options: options(directory))
            defer { reopened.stop() }
            return (export(reopened), try WireJSON.encode(file))
        }()
        try replaceCheckpoint(in: directory, with: json)
        let host = try ServerHost(options: options(directory))
        #expect(host.startupReport == "restored the checkpoint")
        #expect(export(host) == state)
    }

    @Test func aCheckpointOfAnUnknownFormatVersionIsRefusedWithASentence() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        var binary: Data = try {
            let host = try ServerHost(options: options(directory))
            makeZone(host)
            host.stop()
            let queue = try database(directory)
            defer { try? queue.close() }
            return try #require(try queue.read { db in try Data.fetchOne(db, sql: "SELECT state FROM checkpoint WHERE id = 1") })
        }()
        binary.replaceSubrange(8..<12, with: [99, 0, 0, 0])
        try replaceCheckpoint(in: directory, with: binary)
        do {
            _ = try ServerHost(options: options(directory))
            Issue.record("a checkpoint of version 99 was loaded")
        } catch {
            let sentence = "\(error)"
            #expect(sentence.contains("format version 99"), "\(sentence)")
            #expect(sentence.contains("versions 1 and 2"), "\(sentence)")
        }
    }

    /// After a replay of many rows the server answers at once; the checkpoint
    /// of what they built is written by the journal's writer right after
    /// start-up, so the next start (even after a kill -9) replays only what came later.
    @Test func aLongReplayIsFollowedByACheckpointWrittenAfterStartUp() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        try {
            let host = try ServerHost(options: options(directory))
            makeZone(host)
            for i in 0..<1_000 { #expect(host.perform(save("r\(i % 50)", i)).status == 200) }
        }()
        let state: Data = try await {
            let host = try ServerHost(options: options(directory))
            #expect(host.startupReport.contains("replayed"), "\(host.startupReport)")
            let queue = try database(directory)
            defer { try? queue.close() }
            let deadline = Date().addingTimeInterval(120)
            var through: Int64 = 0
            while through < 1_001, Date() < deadline {
                through = try await queue.read { db in try Int64.fetchOne(db, sql: "SELECT throughSeq FROM checkpoint WHERE id = 1") } ?? 0
                if through < 1_001 { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(through >= 1_001, "no checkpoint after the replay")
            #expect(host.perform(save("after", 1)).status == 200)
            return export(host)
        }()
        // No clean stop again: the next start restores the checkpoint and replays one row.
        let host = try ServerHost(options: options(directory))
        #expect(host.startupReport == "restored the checkpoint, replayed 1 journal row", "\(host.startupReport)")
        #expect(export(host) == state)
    }

    /// A checkpoint costs what the state holds, so once the state holds more
    /// records than `checkpointEvery` rows, the next checkpoint waits for half
    /// as many rows as the last one held records (not `checkpointEvery`), and
    /// is written as of exactly that row.
    @Test func aCheckpointWaitsForHalfAsManyRowsAsTheLastOneHeldRecords() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let host = try ServerHost(options: options(directory, checkpointEvery: 5))
        makeZone(host)
        let operations = (0..<300).map { #"{"operationType":"create","record":{"recordName":"b\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)}}}}"# }
        #expect(host.perform(call("records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations.joined(separator: ","))]}"#)).status == 200)
        var saves = 0
        while host.checkpointProgress.recordsHeld == 0, saves < 10 {
            #expect(host.perform(save("s\(saves)", saves)).status == 200)
            saves += 1
        }
        let first = host.checkpointProgress
        #expect(first.recordsHeld >= 300, "\(first)")
        let queue = try database(directory)
        defer { try? queue.close() }
        // One checkpoint is queued at a time: let the first reach the disk.
        #expect(try await storedCheckpoint(in: queue, reaching: first.through) == first.through)
        let wait = first.recordsHeld / 2
        for i in 1..<wait {
            #expect(host.perform(save("t\(i)", i)).status == 200)
            guard host.checkpointProgress.through == first.through else {
                Issue.record("a checkpoint after \(i) rows, before the \(wait) that \(first.recordsHeld) records call for")
                return
            }
        }
        #expect(host.checkpointProgress.rowsSince == wait - 1)
        #expect(host.perform(save("last", 0)).status == 200)
        let second = host.checkpointProgress
        #expect(second.through == first.through + Int64(wait))
        #expect(second.rowsSince == 0)
        #expect(second.recordsHeld >= first.recordsHeld + wait - 1)
        // It reaches the disk as of that row: the rows it holds are gone from the journal.
        #expect(try await storedCheckpoint(in: queue, reaching: second.through) == second.through)
        let left = try await queue.read { db in try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE seq <= ?", arguments: [second.through]) }
        #expect(left == 0)
    }

    /// The last row of the stored checkpoint, once it is `through` (or after a minute, whatever it is).
    func storedCheckpoint(in queue: DatabaseQueue, reaching through: Int64) async throws -> Int64 {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let stored = try await queue.read { db in try Int64.fetchOne(db, sql: "SELECT throughSeq FROM checkpoint WHERE id = 1") } ?? 0
            if stored >= through || Date() > deadline { return stored }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Many calls at once: their rows share transactions, and the journal's
    /// order is the order the engine applied them, so a replay gives the same state.
    @Test(arguments: [20_000, 25])
    func concurrentCallsReplayToTheSameState(checkpointEvery: Int) async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let state: Data = try await {
            let host = try ServerHost(options: options(directory, checkpointEvery: checkpointEvery))
            makeZone(host)
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for i in 0..<40 {
                            // Overlapping names: the outcome depends on the order of the steps.
                            let answer = await host.performAsync(save("r\((writer * 7 + i) % 23)", writer * 1000 + i))
                            #expect(answer.status == 200)
                        }
                    }
                }
            }
            return export(host)
        }()
        // No clean stop: whatever was acknowledged is in the journal (and checkpoints).
        let reopened = try ServerHost(options: options(directory, checkpointEvery: checkpointEvery))
        #expect(export(reopened) == state)
    }
}
