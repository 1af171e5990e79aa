import Foundation
import GRDB
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// A data folder never mistakes lost state for new state: a checkpoint that
/// went missing after the rows it holds were deleted, or rows missing from
/// the journal, stop the start with a sentence naming the folder and what
/// is missing, and the folder is left as it was.
@Suite struct LostStateTests {
    let container = "iCloud.com.example.Lost"
    let manager = FileManager.default

    func options(_ directory: URL) -> ServeOptions {
        ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 5, quiet: true)
    }

    func folder() -> URL { manager.temporaryDirectory.appendingPathComponent("lost-\(UUID().uuidString)") }

    func post(_ host: ServerHost, _ operation: String, _ json: String) async -> APIAnswer {
        await host.perform(APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice"))
    }

    /// alice's zone and three records, then a clean stop (a checkpoint, no rows) or none (rows only).
    func populate(_ directory: URL, cleanStop: Bool) async throws {
        let host = try await ServerHost.start(options: options(directory))
        #expect(await post(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        for i in 0..<3 {
            #expect(await post(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"r\#(i)","recordType":"Note"}}]}"#).status == 200)
        }
        if cleanStop { #expect(await host.stop().hasPrefix("state saved")) }
    }

    func execute(_ directory: URL, _ sql: String) throws {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// The number of the last journal row written.
    func lastRow(_ directory: URL) throws -> Int64 {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        return try queue.read { db in try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'journal'") ?? 0 }
    }

    func refusal(_ directory: URL) async -> String? {
        do {
            let host = try await ServerHost.start(options: options(directory))
            await host.stop()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aDeletedCheckpointWhoseRowsWereFoldedIsRefusedNotStartedAsNewState() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        try await populate(directory, cleanStop: true)
        let last = try lastRow(directory)
        try execute(directory, "DELETE FROM checkpoint")
        let first = try #require(await refusal(directory), "the folder started as new state")
        #expect(first.contains(directory.path) && first.contains("lost its checkpoint") && first.contains("row \(last)"), "\(first)")
        // Refused again, and the same way: the refusal changed nothing in the folder.
        #expect(await refusal(directory) == first)
    }

    /// A folder from before `meta` named the checkpoint: SQLite's row counter still shows the rows.
    @Test func aDeletedCheckpointIsRefusedEvenWithoutTheMetaRowSayingHowFarItWent() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        try await populate(directory, cleanStop: true)
        let last = try lastRow(directory)
        try execute(directory, "DELETE FROM checkpoint; DELETE FROM meta WHERE key = '\(Journal.checkpointMetaKey)'")
        let text = try #require(await refusal(directory), "the folder started as new state")
        #expect(text.contains(directory.path) && text.contains("hole") && text.contains("rows 1 to \(last) are missing"), "\(text)")
    }

    @Test func aRowMissingBetweenTheCheckpointAndTheLastRowIsRefused() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        try await populate(directory, cleanStop: false)
        try execute(directory, "DELETE FROM journal WHERE seq = 2")
        let text = try #require(await refusal(directory), "the folder started without row 2")
        #expect(text.contains(directory.path) && text.contains("row 2 is missing"), "\(text)")
    }

    @Test func theLastRowsMissingAreRefused() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        try await populate(directory, cleanStop: false)
        let last = try lastRow(directory)
        try execute(directory, "DELETE FROM journal WHERE seq >= \(last - 1)")
        let text = try #require(await refusal(directory), "the folder started without its last rows")
        #expect(text.contains(directory.path) && text.contains("rows \(last - 1) to \(last) are missing"), "\(text)")
    }

    @Test func anIntactFolderStillStartsWithEverything() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        try await populate(directory, cleanStop: false)
        do {
            let host = try await ServerHost.start(options: options(directory))
            #expect(host.startupReport == "replayed \(try lastRow(directory)) journal rows", "\(host.startupReport)")
            await host.stop()
        }
        let again = try await ServerHost.start(options: options(directory))
        #expect(again.startupReport == "restored the checkpoint", "\(again.startupReport)")
        await again.stop()
    }
}
