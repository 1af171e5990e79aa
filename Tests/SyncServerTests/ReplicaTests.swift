import Foundation
import SyncCore
import SyncServer
import Testing

/// Random runs that interleave writes, batched fetches and compaction: a client
/// that applies every batch it receives must end up with exactly the server's
/// data. This exercises resumable tokens, the floor of first fetches and
/// expiry together, the way a real client meets them.
@Suite struct ReplicaTests {
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func zoneReplicaBuiltFromBatchesMatchesTheServer(seed: UInt64) throws {
        let f = try Fixture(configuration: ServerConfiguration(retention: seed.isMultiple(of: 2) ? 40 : nil, seed: seed))
        let notes = try f.createZone("Notes")
        var random = SeededRandom(seed: seed)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }

        var server: [String: Int64] = [:]
        var replica: [String: Int64] = [:]
        var token: ServerChangeToken?
        var drained = false
        // Records that existed when the current chain of tokens began, or were saved since:
        // the only ones whose deletion a fetch may report.
        var known: Set<String> = []

        for step in 0..<400 {
            switch pick(10) {
            case 0...2:
                var batch: [String: Int64] = [:]
                for _ in 0...pick(4) { batch["r\(pick(30))"] = Int64(step) }
                try f.save(batch.keys.sorted().map { f.record($0, in: notes, ["v": .int64(batch[$0] ?? 0)]) }, in: notes)
                server.merge(batch) { $1 }
                known.formUnion(batch.keys)
                drained = false
            case 3:
                let victims = Array(server.keys.sorted().prefix(1 + pick(3)).filter { _ in pick(2) == 0 })
                guard !victims.isEmpty else { continue }
                try f.delete(victims, in: notes)
                for name in victims { server[name] = nil }
                drained = false
            case 4 where pick(4) == 0:
                try f.engine.compactHistory(caller: f.alice, database: f.privateDB, scope: .private, zoneID: notes, keepLast: pick(20))
            default:
                if token == nil { known = Set(server.keys) }
                let result = try f.engine.fetchRecordZoneChanges(
                    caller: f.alice, database: f.privateDB,
                    [ZoneChangesRequest(zoneID: notes, previousServerChangeToken: token, resultsLimit: 1 + pick(6))])[0]
                switch result {
                case .failure(let error):
                    #expect(error.code == .changeTokenExpired, "step \(step): \(error)")
                    token = nil
                    replica = [:]
                case .success(let batch):
                    let names = batch.changes.map(\.recordID.recordName)
                    #expect(Set(names).count == names.count, "step \(step): a record twice in one batch")
                    for change in batch.changes {
                        switch change {
                        case .changed(let record):
                            if case .int64(let v)? = record["v"] { replica[record.recordID.recordName] = v }
                        case .deleted(let id, _):
                            #expect(known.contains(id.recordName), "step \(step): deletion of \(id.recordName), gone before the fetch began")
                            replica[id.recordName] = nil
                        }
                    }
                    token = batch.serverChangeToken
                    drained = !batch.moreComing
                    if drained { #expect(replica == server, "step \(step): replica differs after a full fetch") }
                }
            }
        }
        let rest = try f.allZoneChanges(notes, since: token)
        for change in rest.changes {
            switch change {
            case .changed(let record):
                if case .int64(let v)? = record["v"] { replica[record.recordID.recordName] = v }
            case .deleted(let id, _): replica[id.recordName] = nil
            }
        }
        #expect(replica == server)
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func databaseReplicaBuiltFromBatchesMatchesTheServer(seed: UInt64) throws {
        let f = try Fixture(configuration: ServerConfiguration(retention: seed.isMultiple(of: 2) ? 25 : nil, seed: seed))
        var random = SeededRandom(seed: seed &+ 100)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }

        var server: Set<String> = []
        var replica: Set<String> = []
        var token: ServerChangeToken?

        for step in 0..<400 {
            let name = "Z\(pick(12))"
            switch pick(10) {
            case 0...1:
                try f.createZone(name)
                server.insert(name)
            case 2 where server.contains(name):
                if pick(3) == 0 {
                    try f.engine.purgeRecordZone(caller: f.alice, database: f.privateDB, zoneID: f.zone(name))
                } else {
                    try f.deleteZone(f.zone(name))
                }
                server.remove(name)
            case 3 where server.contains(name):
                try f.save("r\(step)", in: f.zone(name))
            case 4 where pick(8) == 0:
                try f.engine.encryptedDataReset(caller: f.alice, database: f.privateDB)
                server.removeAll()
            case 5 where pick(6) == 0:
                try f.engine.compactHistory(caller: f.alice, database: f.privateDB, scope: .private, zoneID: nil, keepLast: pick(10))
            default:
                do {
                    let batch = try f.databaseChanges(since: token, limit: 1 + pick(4))
                    let ids = batch.changes.map(\.zoneID)
                    #expect(Set(ids).count == ids.count, "step \(step): a zone twice in one batch")
                    for change in batch.changes {
                        switch change {
                        case .zoneChanged(let id): replica.insert(id.zoneName)
                        case .zoneRemoved(let id, _): replica.remove(id.zoneName)
                        }
                    }
                    #expect(!ids.contains { $0.isDefaultZone })
                    token = batch.serverChangeToken
                    if !batch.moreComing { #expect(replica == server, "step \(step)") }
                } catch let error as CloudError {
                    #expect(error.code == .changeTokenExpired, "step \(step): \(error)")
                    token = nil
                    replica = []
                }
            }
        }
    }
}
