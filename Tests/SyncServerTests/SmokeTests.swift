import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct SmokeTests {
    @Test func saveFetchInBatchesThenIncremental() throws {
        let engine = ServerEngine()
        try engine.addUser("alice")
        let alice = Caller(user: "alice", deviceID: "phone")
        let db = DatabaseID(container: "c", scope: .private)
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        _ = try engine.modifyRecordZones(caller: alice, database: db, saving: [zone], deleting: [])
        let ops = (1...5).map { RecordOperation.save(Record(recordID: RecordID(recordName: "r\($0)", zoneID: zone), recordType: "Note", fields: ["title": .string("n\($0)")])) }
        _ = try engine.modifyRecords(caller: alice, database: db, zoneID: zone, operations: ops)
        var token: ServerChangeToken?
        var seen: [String] = []
        var batches = 0
        repeat {
            let batch = try engine.fetchRecordZoneChanges(caller: alice, database: db, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: token, resultsLimit: 2)])[0].get()
            seen += batch.changes.map(\.recordID.recordName)
            token = batch.serverChangeToken
            batches += 1
            if !batch.moreComing { break }
        } while true
        #expect(seen == ["r1", "r2", "r3", "r4", "r5"])
        #expect(batches == 3)
        // update r2 twice, delete r4
        var r2 = try engine.lookupRecords(caller: alice, database: db, zoneID: zone, recordNames: ["r2"])[0].get()
        r2["title"] = "x"
        let saved = try engine.modifyRecords(caller: alice, database: db, zoneID: zone, operations: [.save(r2)])[0].get()
        guard case .saved(var r2b) = saved else { Issue.record("not saved"); return }
        r2b["title"] = "y"
        _ = try engine.modifyRecords(caller: alice, database: db, zoneID: zone, operations: [.save(r2b), .delete(RecordID(recordName: "r4", zoneID: zone))])
        let inc = try engine.fetchRecordZoneChanges(caller: alice, database: db, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: token)])[0].get()
        #expect(inc.changes.count == 2)
        if case .changed(let r) = inc.changes[0] { #expect(r["title"] == "y") } else { Issue.record("expected change") }
        if case .deleted(let id, let type) = inc.changes[1] { #expect(id.recordName == "r4"); #expect(type == "Note") } else { Issue.record("expected deletion") }
        let dbChanges = try engine.fetchDatabaseChanges(caller: alice, database: db, since: nil)
        #expect(dbChanges.changes == [.zoneChanged(zone)])
        // wrong kind
        #expect(throws: CloudError.self) { try engine.fetchDatabaseChanges(caller: alice, database: db, since: inc.serverChangeToken) }
    }
}
