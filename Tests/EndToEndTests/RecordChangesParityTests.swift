import Foundation
import SyncCore
import SyncSimulation
import SyncWorlds
import Testing

/// `ServerObserver.recordChanges(since:)`, the read the inspector's records
/// pane keeps up to date with: the same answers from the in-process engine's
/// change log and from `changes/zone` over HTTP.
@Suite struct RecordChangesParityTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    func note(_ name: String, _ title: String) -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note", fields: ["title": .string(title)])
    }

    func describe(_ changes: [RecordChange]) -> [String] {
        changes.map {
            switch $0 {
            case .changed(let record):
                if case .string(let title)? = record["title"] { "\(record.recordID.recordName)=\(title)" } else { record.recordID.recordName }
            case .deleted(let id, _): "-\(id.recordName)"
            }
        }
    }

    /// Records, a position, changes since it (over more than one page), nothing
    /// since the end, and an expired position after a compaction.
    func story(_ world: SyncWorld) async throws -> [String] {
        let device = try #require(world.devices.first)
        let observer = world.serverObserver
        #expect(await world.createZone("Notes", on: device).error == nil)
        for name in ["n1", "n2", "n3"] { #expect(await world.save(note(name, "first \(name)"), on: device).error == nil) }
        let start = try await observer.recordsAtPosition(in: notes, scope: .private, user: "alice", environment: .development)
        var told = ["records " + start.records.map(\.recordID.recordName).sorted().joined(separator: ",")]
        let position = try #require(start.position)

        #expect(await world.save(note("n4", "new"), on: device).error == nil)
        #expect(await world.save(note("n1", "edited"), on: device).error == nil)
        #expect(await world.delete(RecordID(recordName: "n2", zoneID: notes), on: device).error == nil)
        guard case .success(let changes) = try await observer.recordChanges(in: notes, scope: .private, user: "alice", environment: .development, since: position) else {
            throw TestFailure("no changes since the position")
        }
        told += describe(changes.changes)

        // More than a page (400) of changes.
        let bulk = (0..<401).map { RecordOperation(type: .forceReplace, record: note("bulk-\($0)", "b")) }
        for chunk in [Array(bulk[0..<400]), Array(bulk[400...])] {
            for result in try await device.connection.modifyRecords(in: .private, zoneID: notes, operations: chunk) {
                if case .failure(let error) = result { throw error }
            }
        }
        guard case .success(let paged) = try await observer.recordChanges(in: notes, scope: .private, user: "alice", environment: .development, since: changes.position) else {
            throw TestFailure("no changes over pages")
        }
        told.append("paged \(paged.changes.count), last \(describe(Array(paged.changes.suffix(1))))")
        guard case .success(let none) = try await observer.recordChanges(in: notes, scope: .private, user: "alice", environment: .development, since: paged.position) else {
            throw TestFailure("no answer from the end")
        }
        told.append("since the end \(none.changes.count)")

        #expect(await world.save(note("n5", "after"), on: device).error == nil)
        #expect(await world.compact(on: device).error == nil)
        switch try await observer.recordChanges(in: notes, scope: .private, user: "alice", environment: .development, since: position) {
        case .success: told.append("old position still usable")
        case .failure(let error): told.append("old position: \(error.code)")
        }
        return told
    }

    @Test func inProcessAndHTTPObserversReadTheSameRecordChanges() async throws {
        let simulation = try Simulation(setup: SimulationSetup(
            container: ServerProcess.container, users: ["alice"], devices: [.init(name: "iPhone", user: "alice")]))
        let inProcess = try await story(simulation)

        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let remote = try await server.remoteDevice("iPhone")
        defer { remote.close() }
        let overHTTP = try await story(remote)

        #expect(inProcess == overHTTP)
        #expect(overHTTP == [
            "records n1,n2,n3", "n4=new", "n1=edited", "-n2", "paged 401, last [\"bulk-400=b\"]", "since the end 0",
            "old position: changeTokenExpired",
        ])
    }
}
