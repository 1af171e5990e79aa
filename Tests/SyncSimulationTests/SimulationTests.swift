import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing

@Suite struct SimulationTests {
    /// Alice's iPhone and Mac, both subscribed to her private database.
    func makeWorld(seed: UInt64 = 1) async throws -> (Simulation, SyncDevice, SyncDevice) {
        let simulation = try Simulation(setup: SimulationSetup(
            seed: seed, users: ["alice"],
            devices: [.init(name: "iPhone", user: "alice"), .init(name: "Mac", user: "alice")]))
        let iPhone = try #require(simulation.device(named: "iPhone"))
        let mac = try #require(simulation.device(named: "Mac"))
        await simulation.subscribe(.database(DatabaseSubscription(subscriptionID: "private-changes")), in: .private, on: iPhone)
        await simulation.createZone("Notes", on: iPhone)
        await simulation.advance(by: 1_000)
        return (simulation, iPhone, mac)
    }

    func note(_ name: String, _ title: String, owner: String = "alice") -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: RecordZoneID(zoneName: "Notes", ownerName: owner)),
               recordType: "Note", fields: ["title": .string(title)])
    }

    @Test func aSaveOnOneDeviceReachesTheOtherThroughAPushTriggeredFetch() async throws {
        let (simulation, iPhone, mac) = try await makeWorld()
        let before = mac.notifications.count
        let originatorBefore = iPhone.notifications.count
        await simulation.save(note("n1", "Groceries"), on: iPhone)
        await simulation.advance(by: 1_000)
        #expect(mac.notifications.count == before + 1)
        #expect(mac.notifications.last?.fetchRunID != nil, "the push should have triggered a fetch")
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).map(\.recordID.recordName) == ["n1"])
        // The device that made the change is not notified of it.
        #expect(iPhone.notifications.count == originatorBefore)
    }

    @Test func tenQuickSavesGiveOnePushAndOneFetchThatGetsAllTen() async throws {
        let (simulation, iPhone, mac) = try await makeWorld()
        let notificationsBefore = mac.notifications.count
        let runsBefore = mac.engine.fetchRuns.count
        for i in 1...10 {
            await simulation.save(note("n\(i)", "note \(i)"), on: iPhone)
            await simulation.advance(by: 10)
        }
        await simulation.advance(by: 2_000)
        let received = mac.notifications.dropFirst(notificationsBefore)
        #expect(received.count == 1)
        #expect(received.first?.notification.coalescedCount == 10)
        #expect(mac.engine.fetchRuns.count == runsBefore + 1)
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).count == 10)
    }

    @Test func anOfflineDeviceGetsOneNotificationWhenItReturnsAndCatchesUp() async throws {
        let (simulation, iPhone, mac) = try await makeWorld()
        await simulation.setOnline(false, device: mac)
        for i in 1...3 {
            await simulation.save(note("n\(i)", "note \(i)"), on: iPhone)
            await simulation.advance(by: 1_000)
        }
        let before = mac.notifications.count
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).isEmpty)
        await simulation.setOnline(true, device: mac)
        await simulation.advance(by: 1_000)
        #expect(mac.notifications.count == before + 1)
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).count == 3)
    }

    @Test func theSameSeedAndActionsGiveTheSameEventsByteForByte() async throws {
        func run() async throws -> [String] {
            let (simulation, iPhone, mac) = try await makeWorld(seed: 9)
            simulation.writer = DemoWriter(
                seed: 9, interval: 700, writers: ["iPhone", "Mac"],
                zones: ["iPhone": RecordZoneID(zoneName: "Notes", ownerName: "alice"), "Mac": RecordZoneID(zoneName: "Notes", ownerName: "alice")])
            await simulation.save(note("n1", "first"), on: iPhone)
            await simulation.setOnline(false, device: mac)
            await simulation.advance(by: 5_000)
            await simulation.setOnline(true, device: mac)
            await simulation.advance(by: 10_000)
            return simulation.events.map { "\($0.time) \($0)" }
        }
        let first = try await run()
        let second = try await run()
        #expect(first == second)
        #expect(first.count > 20)
    }

    @Test func theWriterKeepsTheWorldChangingAndDevicesConvergeAfterSettling() async throws {
        let (simulation, _, mac) = try await makeWorld(seed: 4)
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        let writer = DemoWriter(seed: 4, interval: 500, writers: ["iPhone", "Mac"], zones: ["iPhone": zone, "Mac": zone])
        simulation.writer = writer
        await simulation.advance(by: 30_000)
        #expect(writer.actions >= 50)
        await simulation.settle()
        let server = simulation.server.withEngine { engine in
            engine.records(in: zone, scope: .private, user: "alice", container: simulation.setup.container)
        }
        for device in simulation.devices {
            #expect(device.cachedRecords(in: zone) == server, "\(device.name) differs from the server")
            // The writer draws by offset: the same records, in the same order, as listing the zone.
            let byOffset = (0..<device.cachedRecordCount(in: zone)).compactMap { device.cachedRecord(atOffset: $0, in: zone) }
            #expect(byOffset == server, "\(device.name) reads other records by offset")
        }
        #expect(!mac.tokenHistory.isEmpty)
    }

    @Test func aFailedActionIsReportedWithTheServersError() async throws {
        let (simulation, iPhone, _) = try await makeWorld()
        let outcome = await simulation.purgeZone(RecordZoneID(zoneName: "Missing", ownerName: "alice"), on: iPhone)
        #expect(outcome.error?.code == .zoneNotFound)
        #expect(simulation.events.last.map { "\($0)" }?.contains("ZONE_NOT_FOUND") == true)
    }
}

@Suite struct SteppingTests {
    @Test func fetchOneBatchStepsThroughTheDatabaseBatchThenEachZoneBatch() async throws {
        let simulation = try Simulation(setup: SimulationSetup(
            users: ["alice"], devices: [.init(name: "iPhone", user: "alice"), .init(name: "Mac", user: "alice", autoFetchOnPush: false)]))
        let iPhone = try #require(simulation.device(named: "iPhone"))
        let mac = try #require(simulation.device(named: "Mac"))
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        await simulation.createZone("Notes", on: iPhone)
        for i in 1...5 {
            await simulation.save(Record(recordID: RecordID(recordName: "n\(i)", zoneID: zone), recordType: "Note", fields: ["i": .int64(Int64(i))]), on: iPhone)
        }
        var cached: [Int] = []
        var outcomes: [String] = []
        for _ in 0..<5 {
            let outcome = await simulation.fetchOneBatch(on: mac, resultsLimit: 2)
            guard case .done(let text) = outcome else { Issue.record("step failed: \(outcome)"); return }
            outcomes.append(text)
            cached.append(mac.cachedRecords(in: zone).count)
        }
        // Database batch first (the zone is now waiting), then 2 + 2 + 1 records.
        #expect(cached == [0, 2, 4, 5, 5])
        #expect(outcomes[3].contains("nothing more"))
        #expect(outcomes[0].contains("more to fetch"))
        // Each zone step cached its batch's token, in order.
        let zoneTokens = mac.tokenHistory.filter { $0.zoneID == zone }
        #expect(zoneTokens.map(\.moreComing) == [true, true, false])
    }
}
