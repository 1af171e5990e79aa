import Foundation
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import SyncCore
import SyncServer
import Testing

/// A replay counts the records its rows save, by zone, before it applies
/// them (so each zone's tables are sized once); the count reads each binary
/// row's first bytes alone, and sizing changes nothing in the state.
@Suite struct ReplaySizingTests {
    let container = "iCloud.com.example.Sizing"

    func call(_ operation: String, _ json: String, scope: String = "private") -> APICall {
        APICall(method: "POST", path: "/database/1/\(container)/development/\(scope)/\(operation)", body: Data(json.utf8), user: "alice")
    }

    func saves(_ names: ClosedRange<Int>, zone: String?) -> APICall {
        let operations = names.map { #"{"operationType":"create","record":{"recordName":"r\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)}}}}"# }
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        return call("records/modify", #"{\#(zoneID)"operations":[\#(operations.joined(separator: ","))]}"#)
    }

    @Test func theRowsCountTheirRecordsByZone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sizing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = ServeOptions(dataDirectory: directory, users: ["alice"], coalescingWindow: 0, seed: 3, quiet: true)
        let live: Data = try await {
            let host = try await ServerHost.start(options: options)
            #expect(await host.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)).status == 200)
            #expect(await host.perform(saves(1...5, zone: "Notes")).status == 200)
            #expect(await host.perform(saves(6...12, zone: "Notes")).status == 200)
            #expect(await host.perform(saves(1...2, zone: nil)).status == 200)
            #expect(await host.perform(saves(1...3, zone: nil).withScope("public")).status == 200)
            return await host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", isServerAdmin: true)).body
        }()
        // As after kill -9: no clean stop, every row still in the journal.
        try {
            let journal = try Journal(directory: directory)
            let counts = try SQLiteServerStore.expectedRecords(in: journal, after: 0)
            #expect(counts == [
                RecordZoneID(zoneName: "Notes", ownerName: "alice"): 12,
                RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "alice"): 2,
                RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: RecordZoneID.publicOwnerName): 3,
            ])
        }()
        // The sized replay builds the same state.
        let restarted = try await ServerHost.start(options: options)
        #expect(restarted.startupReport.contains("replayed"))
        #expect(await restarted.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", isServerAdmin: true)).body == live)
    }

    @Test func expectingRecordsChangesNoState() throws {
        func run(expecting: Bool) throws -> ServerStateFile {
            let engine = ServerEngine(configuration: ServerConfiguration(seed: 4), clock: VirtualClock())
            try engine.addUser("alice")
            let alice = Caller(user: "alice")
            let db = DatabaseID(container: container, environment: .development, scope: .private)
            let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
            if expecting { engine.expectRecords([notes: 50, RecordZoneID(zoneName: "Never", ownerName: "alice"): 10]) }
            _ = try engine.modifyRecordZones(caller: alice, database: db, saving: [notes], deleting: [])
            for batch in 0..<5 {
                let operations = (0..<10).map { n in
                    RecordOperation.save(Record(recordID: RecordID(recordName: "r\(batch)-\(n)", zoneID: notes), recordType: "Note", fields: ["n": .int64(Int64(n))]))
                }
                _ = try engine.modifyRecords(caller: alice, database: db, zoneID: notes, operations: operations)
            }
            return engine.checkpointState()
        }
        #expect(try run(expecting: true) == run(expecting: false))
    }
}

extension APICall {
    fileprivate func withScope(_ scope: String) -> APICall {
        var call = self
        call.path = call.path.replacingOccurrences(of: "/private/", with: "/\(scope)/")
        return call
    }
}
