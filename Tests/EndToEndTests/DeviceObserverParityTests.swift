import Foundation
import SyncCore
import SyncSimulation
import SyncWorlds
import Testing

/// The inspector's two views of the server — inside the in-process engine, and
/// through the HTTP API — tell the same story for the same history.
@Suite struct DeviceObserverParityTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    /// Zones, saves, edits, a deletion, a deleted zone and a purged one; returns
    /// the device's Notes token and database token from the middle of it.
    func history(_ world: SyncWorld) async throws -> (zone: ServerChangeToken, database: ServerChangeToken) {
        let device = try #require(world.devices.first)
        func save(_ name: String, in zone: String, _ title: String) async {
            let record = Record(
                recordID: RecordID(recordName: name, zoneID: RecordZoneID(zoneName: zone, ownerName: "alice")), recordType: "Note",
                fields: ["title": .string(title)])
            #expect(await world.save(record, on: device).error == nil)
        }
        for zone in ["Notes", "Photos", "Trash", "Keep"] { #expect(await world.createZone(zone, on: device).error == nil) }
        for i in 1...4 { await save("n\(i)", in: "Notes", "note \(i)") }
        await save("p1", in: "Photos", "beach")
        await save("p2", in: "Photos", "hills")
        await save("t1", in: "Trash", "old")
        #expect(await world.fetch(on: device).error == nil)
        let zoneToken = try #require(device.cachedZoneToken(for: notes))
        let databaseToken = try #require(device.cachedDatabaseToken(for: .private))
        await save("n5", in: "Notes", "note 5")
        await save("n1", in: "Notes", "note 1, edited")
        #expect(await world.delete(RecordID(recordName: "n2", zoneID: notes), on: device).error == nil)
        #expect(await world.deleteZone(RecordZoneID(zoneName: "Trash", ownerName: "alice"), on: device).error == nil)
        #expect(await world.purgeZone(RecordZoneID(zoneName: "Photos", ownerName: "alice"), on: device).error == nil)
        return (zoneToken, databaseToken)
    }

    struct View: Equatable, CustomStringConvertible {
        var zones: [String]
        var removed: [ServerRemovedZone]
        var pendingSinceMiddle: Int?
        var rewindFromMiddle: [String]
        var records: [String]
        var databaseChangedSinceMiddle: Bool
        var tokenProblem: CloudError.Code?
        var pendingForCurrentToken: Int?

        var description: String {
            "zones \(zones), removed \(removed.map { "\($0.zoneID.zoneName) \($0.reason)" }), pending \(pendingSinceMiddle.map(String.init) ?? "nil"), "
                + "rewind \(rewindFromMiddle), records \(records), database changed \(databaseChangedSinceMiddle), problem \(String(describing: tokenProblem)), "
                + "pending now \(pendingForCurrentToken.map(String.init) ?? "nil")"
        }
    }

    func view(of observer: any ServerObserver, tokens: (zone: ServerChangeToken, database: ServerChangeToken)) async throws -> View {
        let summaries = try await observer.zoneSummaries(user: "alice", environment: .development)
        let current = try #require(summaries.first { $0.zoneID == notes }?.currentToken)
        let rewind = try await observer.rewind(from: tokens.zone, zoneID: notes, scope: .private, user: "alice", environment: .development, resultsLimit: 2)
        guard case .success(.zone(let batch)) = rewind else { throw TestFailure("no rewind: \(rewind)") }
        return View(
            zones: summaries.map { summary in
                let count = summary.zoneID.isDefaultZone ? "" : " \(summary.recordCount.map(String.init) ?? "?")"
                return "\(summary.scope.rawValue) \(summary.zoneID.zoneName)@\(summary.zoneID.ownerName)\(count) token:\(summary.currentToken != nil)"
            },
            removed: try await observer.removedZones(user: "alice", environment: .development),
            pendingSinceMiddle: try await observer.pendingChangeCount(since: tokens.zone, zoneID: notes, scope: .private, user: "alice", environment: .development),
            rewindFromMiddle: batch.changes.map {
                switch $0 {
                case .changed(let record): "\(record.recordID.recordName)=\(record["title"].map { "\($0)" } ?? "")"
                case .deleted(let id, _): "-\(id.recordName)"
                }
            },
            records: try await observer.records(in: notes, scope: .private, user: "alice", environment: .development).map {
                "\($0.recordID.recordName)=\($0["title"].map { "\($0)" } ?? "")"
            },
            databaseChangedSinceMiddle: try await observer.databaseChanged(since: tokens.database, scope: .private, user: "alice", environment: .development),
            tokenProblem: try await observer.validate(tokens.zone, zoneID: notes, scope: .private, user: "alice", environment: .development)?.code,
            pendingForCurrentToken: try await observer.pendingChangeCount(since: current, zoneID: notes, scope: .private, user: "alice", environment: .development))
    }

    @Test func inProcessAndHTTPObserversTellTheSameStoryForTheSameHistory() async throws {
        let simulation = try Simulation(setup: SimulationSetup(
            container: ServerProcess.container, users: ["alice", "bob"], devices: [.init(name: "iPhone", user: "alice")]))
        let inProcessTokens = try await history(simulation)
        let inProcess = try await view(of: simulation.serverObserver, tokens: inProcessTokens)

        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let remote = try await server.remoteDevice("iPhone")
        defer { remote.close() }
        let httpTokens = try await history(remote)
        let overHTTP = try await view(of: remote.serverObserver, tokens: httpTokens)

        #expect(inProcess == overHTTP)
        // The device's own view, in one go: its Notes token is in sync after a fetch, on both.
        await simulation.fetch(on: try #require(simulation.devices.first))
        await remote.fetch(on: remote.device)
        let inProcessSnapshot = try await simulation.serverObserver.snapshot(of: try #require(simulation.devices.first))
        let httpSnapshot = try await remote.serverObserver.snapshot(of: remote.device)
        #expect(inProcessSnapshot.zoneTokens == httpSnapshot.zoneTokens)
        #expect(httpSnapshot.zoneTokens[notes] == .behind(0))
        #expect(httpSnapshot.removedZones == inProcessSnapshot.removedZones)
        #expect(httpSnapshot.zones.map(\.recordCount) == [0, 4, nil])
        #expect(httpSnapshot.publicZone?.scope == .public)
        // And the story is the one told: n1 edited, n2 deleted, n5 new; Trash deleted, Photos purged.
        #expect(overHTTP.zones == [
            "private Keep@alice 0 token:true", "private Notes@alice 4 token:true", "private _defaultZone@alice token:false",
        ])
        #expect(overHTTP.removed.map(\.reason) == [.purged, .deleted])
        #expect(overHTTP.pendingSinceMiddle == 3)
        #expect(overHTTP.rewindFromMiddle.count == 2)
        #expect(overHTTP.records.map { $0.prefix(2) } == ["n1", "n3", "n4", "n5"])
        #expect(overHTTP.databaseChangedSinceMiddle)
        #expect(overHTTP.tokenProblem == nil)
        #expect(overHTTP.pendingForCurrentToken == 0)
    }

    @Test func overHTTPAnExpiredTokenIsAnAnswerAndTokensAreOpaque() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        let remote = try await server.remoteDevice("iPhone")
        defer { remote.close() }
        let tokens = try await history(remote)
        await remote.compact(on: remote.device)
        let observer = remote.serverObserver
        #expect(try await observer.validate(tokens.zone, zoneID: notes, scope: .private, user: "alice", environment: .development)?.code == .changeTokenExpired)
        #expect(try await observer.pendingChangeCount(since: tokens.zone, zoneID: notes, scope: .private, user: "alice", environment: .development) == nil)
        #expect(await observer.describe(tokens.zone).contains(tokens.zone.shortForm))
        #expect(await observer.pendingNotifications(forDevice: remote.device.deviceID).isEmpty)
        // It sees only the users it signed in as, in its device's environment.
        await #expect(throws: CloudError.self) { _ = try await observer.zoneSummaries(user: "bob", environment: .development) }
        await #expect(throws: CloudError.self) { _ = try await observer.zoneSummaries(user: "alice", environment: .production) }
    }

    @Test func overHTTPAProductionDeviceSeesProductionsZonesNotDevelopments() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        let simulator = try await server.remoteDevice("Simulator")
        defer { simulator.close() }
        let testFlight = try await server.remoteDevice("TestFlight", environment: .production)
        defer { testFlight.close() }
        #expect(testFlight.device.environment == .production)
        #expect(await simulator.createZone("Notes", on: simulator.device).error == nil)
        #expect(await testFlight.createZone("Drafts", on: testFlight.device).error == nil)
        let inDevelopment = try await simulator.serverObserver.snapshot(of: simulator.device).zones.map(\.zoneID.zoneName)
        let inProduction = try await testFlight.serverObserver.snapshot(of: testFlight.device).zones.map(\.zoneID.zoneName)
        #expect(inDevelopment.contains("Notes") && !inDevelopment.contains("Drafts"), "\(inDevelopment)")
        #expect(inProduction.contains("Drafts") && !inProduction.contains("Notes"), "\(inProduction)")
    }
}
