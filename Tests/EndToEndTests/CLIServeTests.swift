import Foundation
import Testing

/// `syncscope serve` start-up mistakes, as the built binary reports them.
@Suite struct CLIServeTests {
    @Test func aSecondServeOnTheSameDataFolderIsRefusedAndTheFirstKeepsWorking() async throws {
        let server = try ServerProcess()
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
        let server = try ServerProcess()
        defer { server.removeData() }
        try await server.createZone("Notes")
        server.kill9()
        let again = try ServerProcess(data: server.dataDirectory)
        defer { again.stop() }
        #expect(again.log.contains("replayed"))
    }
}
