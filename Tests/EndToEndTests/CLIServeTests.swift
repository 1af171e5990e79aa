import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import Testing

/// `syncscope serve` start-up mistakes, as the built binary reports them.
@Suite struct CLIServeTests {
    @Test func aPortInUseStopsServeWithASentenceAndStatus1BeforeItMakesItsDataFolder() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-unused-\(UUID().uuidString)")
        let output = try BinaryRunner.run(["serve", "--port", String(server.port), "--data", folder.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("Error: Port \(server.port) is already in use on 127.0.0.1 (another syncscope serve?)"))
        #expect(!output.stderr.contains("Usage:") && !output.stderr.contains("errno"))
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func aSecondServeOnTheSameDataFolderIsRefusedAndTheFirstKeepsWorking() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let output = try BinaryRunner.run(["serve", "--port", "0", "--data", server.dataDirectory.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("is using the data folder \(server.dataDirectory.path). Stop it, or pass another --data folder, or --in-memory."))
        #expect(output.stdout.isEmpty)
        let zones = try await server.call(server.db("private", "zones/list"))
        #expect(zones.status == 200 && String(decoding: zones.data, as: UTF8.self).contains("Notes"))
    }

    @Test func aServerKilledWithMinus9LeavesNoLockBehind() async throws {
        let server = try await ServerProcess.start()
        defer { server.removeData() }
        try await server.createZone("Notes")
        server.kill9()
        let again = try await ServerProcess.start(data: server.dataDirectory)
        defer { again.stop() }
        #expect(again.log.contains("replayed"))
    }

    /// A data folder stopped cleanly whose checkpoint is then deleted (its
    /// rows were folded into it) is refused with status 1 and a sentence
    /// naming the folder, never started as a new, empty state; the folder is left as it was.
    @Test func aFolderThatLostItsCheckpointIsRefusedNotStartedAsNewState() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-lost-\(UUID().uuidString)")
        let server = try await ServerProcess.start(data: folder)
        defer { server.removeData() }
        try await server.createZone("Notes")
        server.stop()
        let database = server.dataDirectory.appendingPathComponent("syncscope.sqlite").path
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in try db.execute(sql: "DELETE FROM checkpoint") }
        try queue.close()
        let output = try BinaryRunner.run(["serve", "--port", "0", "--data", server.dataDirectory.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("The data folder \(server.dataDirectory.path) has lost its checkpoint"), "\(output.stderr)")
        #expect(!output.stdout.contains("new state"))
        // Nothing was written in its place: no new checkpoint, and a second start is refused the same way.
        let reopened = try DatabaseQueue(path: database)
        #expect(try await reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM checkpoint") } == 0)
        try reopened.close()
        let again = try BinaryRunner.run(["serve", "--port", "0", "--data", server.dataDirectory.path])
        #expect(again.status == 1 && again.stderr == output.stderr)
    }

    @Test(arguments: [
        (["--port", "-1"], "--port must be 0 to 65535 (got -1)"),
        (["--coalescing-window", "-5"], "--coalescing-window must be 0 or more (got -5)"),
        (["--retention", "-2"], "--retention must be 0 or more (got -2)"),
    ])
    func aNegativeNumberIsNamedAsOutOfRangeNotAsAMissingValue(arguments: [String], message: String) throws {
        let output = try BinaryRunner.run(["serve", "--in-memory"] + arguments)
        #expect(output.status == 64)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func serveOutlivesAReaderThatWentAwayAndStopsCleanly() async throws {
        // `syncscope serve | head -1`: the log's reader goes away; the server must not trap on the next line.
        let process = Process()
        process.executableURL = BinaryRunner.binaryURL
        process.arguments = ["serve", "--in-memory", "--port", "0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var banner = ""
        while !banner.contains("\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            banner += String(decoding: data, as: UTF8.self)
        }
        let range = try #require(banner.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression))
        try pipe.fileHandleForReading.close()

        // Each request writes a log line into the closed pipe.
        for _ in 0..<3 {
            let url = try #require(URL(string: String(banner[range]) + "/database/1/iCloud.x/development/private/zones/list"))
            let (_, response) = try await URLSession.shared.data(from: url)
            #expect(((response as? HTTPURLResponse)?.statusCode ?? 0) >= 400)  // Answered (no token given), and logged.
        }
        #expect(process.isRunning)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
