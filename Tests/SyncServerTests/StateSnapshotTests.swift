import Foundation
import SyncCore
import SyncServer
import Testing

/// A checkpoint taken as a snapshot (cheap, under the lock) and made into a
/// state file later (off the lock) is the state as it was when taken,
/// whatever the engine did in between.
@Suite struct StateSnapshotTests {
    func populated() throws -> (Fixture, RecordZoneID) { try Fixture.withHistory(records: 40) }

    @Test func aSnapshotMadeIntoAFileLaterIsTheStateWhenItWasTaken() throws {
        let (taken, notes) = try populated()
        let (reference, _) = try populated()

        let snapshot = taken.engine.checkpointSnapshot()
        let expected = reference.engine.checkpointState()
        // The engine goes on: new, changed and deleted records, a new zone,
        // a revoked share, another client token, a purge, another user's zone.
        try taken.saveMany(25, prefix: "late", in: notes)
        try taken.save("r5", in: notes, ["text": .string("changed after the snapshot")])
        try taken.delete(["r1", "r2"], in: notes)
        let later = try taken.createZone("Later")
        try taken.saveMany(5, in: later)
        try taken.engine.shareRecordZone(caller: taken.alice, database: taken.privateDB, zoneID: notes, participants: ["bob"], revoke: true)
        _ = try taken.modify([], in: notes, clientChangeTokenData: Data([9]))
        try taken.createZone("Bobs", by: taken.bob)

        let file = snapshot.file()
        #expect(file == expected)
        #expect(file.containers.flatMap(\.users).flatMap(\.privateZones).contains { $0.records.contains { $0.recordName == "late1" } } == false)
        // And what the engine has now differs from it.
        #expect(taken.engine.exportState().containers != expected.containers)
    }

    @Test func exportAndCheckpointStillListEverythingSortedAndRestoreExactly() throws {
        let (f, notes) = try populated()
        let checkpoint = f.engine.checkpointState()
        let zone = try #require(checkpoint.containers.first?.users.first { $0.user == "alice" }?.privateZones.first { $0.zoneName == notes.zoneName })
        #expect(zone.records.map(\.sequence) == zone.records.map(\.sequence).sorted())
        #expect(zone.records.count == 38)
        let copy = try Fixture()
        try copy.engine.importState(checkpoint, keepingHistory: true)
        #expect(copy.engine.checkpointState() == f.engine.checkpointState())
    }
}
