import Foundation
import SyncCore
@testable import SyncServer
import Testing

/// A zone's per-type index (the names `records/query` reads) holds exactly
/// the names of its live records of each type, whatever the order of saves,
/// changes of type and removals, and each record knows where its name is.
@Suite struct ZoneStateTests {
    func stored(type: UInt32, sequence: Int64) -> StoredRecord {
        let stamp = Stamp(time: 0, user: 1, device: 0)
        return StoredRecord(type: type, fields: ["n": .int64(sequence)], tag: UInt64(sequence), created: stamp, modified: stamp, sequence: sequence)
    }

    /// Checks the index against the records, both ways.
    func expectIndexMatchesRecords(_ zone: ZoneState, after step: String) {
        var expected: [UInt32: Set<String>] = [:]
        for (name, record) in zone.records { expected[record.type, default: []].insert(name) }
        #expect(zone.recordNamesByType.mapValues { Set($0) } == expected, "after \(step)")
        for (type, names) in zone.recordNamesByType {
            #expect(Set(names).count == names.count, "a name is in the index once (after \(step))")
            for (slot, name) in names.enumerated() {
                #expect(zone.records[name]?.type == type, "\(name) is a record of type \(type) (after \(step))")
                #expect(zone.records[name]?.typeSlot == UInt32(slot), "\(name) knows its place (after \(step))")
            }
        }
    }

    @Test func theTypeIndexFollowsSavesChangesAndRemovals() {
        let zone = ZoneState(zoneID: RecordZoneID(zoneName: "Z", ownerName: "alice"), incarnation: 1)
        var random = SeededRandom(seed: 23)
        for step in 1...3_000 {
            let name = "r\(Int.random(in: 0..<60, using: &random))"
            let type = UInt32.random(in: 1...3, using: &random)
            let action: String
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                zone.store(stored(type: type, sequence: Int64(step)), name: name)
                action = "saving \(name) as type \(type)"
            default:
                let removed = zone.removeRecord(named: name)
                action = "removing \(name) (\(removed == nil ? "absent" : "present"))"
            }
            expectIndexMatchesRecords(zone, after: "step \(step), \(action)")
        }
        // Emptying the zone leaves no type behind.
        for name in Array(zone.records.keys) { zone.removeRecord(named: name) }
        #expect(zone.recordNamesByType.isEmpty)
    }

    @Test func savingARecordAgainKeepsItsPlaceAndItsValues() {
        let zone = ZoneState(zoneID: RecordZoneID(zoneName: "Z", ownerName: "alice"), incarnation: 1)
        for (index, name) in ["a", "b", "c"].enumerated() { zone.store(stored(type: 1, sequence: Int64(index + 1)), name: name) }
        zone.store(stored(type: 1, sequence: 9), name: "b")
        #expect(zone.recordNamesByType[1] == ["a", "b", "c"])
        #expect(zone.records["b"]?.sequence == 9)
        #expect(zone.records["b"]?.typeSlot == 1)
        zone.removeRecord(named: "a")
        #expect(zone.recordNamesByType[1] == ["c", "b"], "the last name takes the removed one's place")
        #expect(zone.records["c"]?.typeSlot == 0)
    }
}
