import Foundation
import SyncCore
import SyncClient
import SyncNetwork
import Testing

/// CloudKit Web Services shapes over real HTTP, with our own clients on top.
@Suite struct NetworkAppleShapeTests {
    /// The server sends a deletion without its type; the device client takes
    /// the type from its cache, so what it reports still names it.
    @Test func theDeviceClientKnowsADeletedRecordsTypeFromItsCache() async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let service = HTTPCloudService(
            baseURL: server.baseURL, webAuthToken: try #require(server.tokens["alice"]), userRecordName: "alice", container: ServerProcess.container)
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        let note = Record(recordID: RecordID(recordName: "n1", zoneID: zone), recordType: "Note", fields: ["title": "hi"])
        _ = try await service.modifyRecords(in: .private, zoneID: zone, operations: [.save(note, policy: .allKeys)])[0].get()
        let first = try await service.fetchRecordZoneChanges(in: .private, [ZoneChangesRequest(zoneID: zone)])[0].get()
        let store = InMemoryLocalStore()
        var batch = StoreBatch(scope: .private)
        batch.savedRecords = first.changes.compactMap { if case .changed(let record) = $0 { record } else { nil } }
        try store.apply(batch)
        _ = try await service.modifyRecords(in: .private, zoneID: zone, operations: [.delete(note.recordID)])[0].get()

        let request = [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: first.serverChangeToken)]
        let raw = try await service.fetchRecordZoneChanges(in: .private, request)[0].get()
        #expect(raw.changes == [.deleted(note.recordID, recordType: "")], "the wire carries no type")
        let typed = try await CacheTypedCloudService(base: service, store: store).fetchRecordZoneChanges(in: .private, request)[0].get()
        #expect(typed.changes == [.deleted(note.recordID, recordType: "Note")])
    }

    @Test func clientQueryAndUploadWork() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        func client(_ arguments: [String]) throws -> BinaryRunner.Output {
            let output = try BinaryRunner.run(["client"] + arguments + common)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            return output
        }
        _ = try client(["create-zone", "Notes"])
        for (name, stars) in [("a", 1), ("b", 5), ("c", 3), ("d", 4)] {
            _ = try client(["save", "Notes", name, "title=\(name)", "stars=\(stars)"])
        }
        let sorted = try client(["query", "Note", "--zone", "Notes", "--filter", "stars>=3", "--sort", "-stars", "--results-limit", "2"])
        let lines = sorted.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains("(Note") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.map { String($0.prefix(1)) } == ["b", "d", "c"], "\(sorted.stdout)")
        #expect(sorted.stdout.contains("continuationMarker") && sorted.stdout.contains("3 records"))
        #expect(sorted.stdout.contains("zone token: "))
        let bad = try BinaryRunner.run(["client", "query", "Note", "--filter", "stars"] + common)
        #expect(bad.status != 0 && bad.stderr.contains("is not a filter"))

        let file = server.dataDirectory.appendingPathComponent("upload.bin")
        let bytes = Data((0..<777).map { UInt8($0 % 251) })
        try bytes.write(to: file)
        let uploaded = try client(["upload", file.path, "--zone", "Notes", "--record", "b", "--field", "photo"])
        #expect(uploaded.stdout.contains("uploaded upload.bin: 777 bytes"), "\(uploaded.stdout)")
        #expect(uploaded.stdout.contains("photo=asset"))
    }
}
