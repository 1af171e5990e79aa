import SyncCore
import SyncRemoteWorld
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing

@Suite struct InProcessServerObserverTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    func world() async throws -> (Simulation, SyncDevice) {
        let simulation = try Simulation(setup: SimulationSetup(users: ["alice"], devices: [.init(name: "iPhone", user: "alice")]))
        let iPhone = try #require(simulation.device(named: "iPhone"))
        await simulation.createZone("Notes", on: iPhone)
        return (simulation, iPhone)
    }

    func note(_ name: String) -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note", fields: ["title": .string(name)])
    }

    @Test func aSimulationIsVirtualTimeAndObservesItsOwnServer() async throws {
        let (simulation, iPhone) = try await world()
        #expect(simulation.isVirtualTime)
        #expect(simulation.serverObserver.seesServerInternals)
        await simulation.save(note("n1"), on: iPhone)
        let summaries = try await simulation.serverObserver.zoneSummaries(user: "alice", environment: .development)
        #expect(summaries.map(\.zoneID.zoneName) == ["Notes", "_defaultZone"])
        #expect(summaries.first?.recordCount == 1)
        #expect(summaries.first?.lastSequence != nil)
        let listed = try await iPhone.connection.listRecordZones(in: .private).first { $0.zoneID == notes }
        #expect(summaries.first?.currentToken == listed?.syncToken)
    }

    @Test func aTokenIsBehindByTheChangesSinceAndRewindsToThem() async throws {
        let (simulation, iPhone) = try await world()
        await simulation.save(note("n1"), on: iPhone)
        await simulation.fetch(on: iPhone)
        let token = try #require(iPhone.cachedZoneToken(for: notes))
        let observer = simulation.serverObserver
        #expect(try await observer.pendingChangeCount(since: token, zoneID: notes, scope: .private, user: "alice", environment: .development) == 0)
        await simulation.save(note("n2"), on: iPhone)
        await simulation.save(note("n3"), on: iPhone)
        await simulation.delete(RecordID(recordName: "n1", zoneID: notes), on: iPhone)
        #expect(try await observer.pendingChangeCount(since: token, zoneID: notes, scope: .private, user: "alice", environment: .development) == 3)
        #expect(try await observer.validate(token, zoneID: notes, scope: .private, user: "alice", environment: .development) == nil)
        guard case .success(.zone(let batch)) = try await observer.rewind(
            from: token, zoneID: notes, scope: .private, user: "alice", environment: .development, resultsLimit: 2)
        else { throw TestFailure("expected a zone batch") }
        #expect(batch.changes.map(\.recordID.recordName) == ["n2", "n3"])
        #expect(batch.moreComing)
        #expect(await observer.describe(token).contains("zone Notes"))
        #expect(try await observer.records(in: notes, scope: .private, user: "alice", environment: .development).map(\.recordID.recordName) == ["n2", "n3"])
    }

    @Test func anExpiredTokenIsAnAnswerNotAThrow() async throws {
        let (simulation, iPhone) = try await world()
        await simulation.save(note("n1"), on: iPhone)
        await simulation.fetch(on: iPhone)
        let zoneToken = try #require(iPhone.cachedZoneToken(for: notes))
        let databaseToken = try #require(iPhone.cachedDatabaseToken(for: .private))
        await simulation.save(note("n2"), on: iPhone)
        await simulation.compact(on: iPhone)
        let observer = simulation.serverObserver
        #expect(try await observer.pendingChangeCount(since: zoneToken, zoneID: notes, scope: .private, user: "alice", environment: .development) == nil)
        #expect(try await observer.validate(zoneToken, zoneID: notes, scope: .private, user: "alice", environment: .development)?.code == .changeTokenExpired)
        let rewind = try await observer.rewind(from: zoneToken, zoneID: notes, scope: .private, user: "alice", environment: .development, resultsLimit: 5)
        guard case .failure(let error) = rewind else { throw TestFailure("an expired token should not rewind") }
        #expect(error.code == .changeTokenExpired)
        #expect(try await observer.databaseChanged(since: databaseToken, scope: .private, user: "alice", environment: .development))
    }

    @Test func aSnapshotSaysHowEachCachedTokenStands() async throws {
        let (simulation, iPhone) = try await world()
        await simulation.save(note("n1"), on: iPhone)
        await simulation.fetch(on: iPhone)
        await simulation.save(note("n2"), on: iPhone)
        #expect(try await simulation.serverObserver.snapshot(of: iPhone).zoneTokens == [notes: .behind(1)])
        await simulation.compact(on: iPhone)
        let snapshot = try await simulation.serverObserver.snapshot(of: iPhone)
        guard case .refused(let error)? = snapshot.zoneTokens[notes] else { throw TestFailure("expected a refused token") }
        #expect(error.code == .changeTokenExpired)
        #expect(snapshot.zones.map(\.zoneID.zoneName) == ["Notes", "_defaultZone"])
        #expect(snapshot.publicZone?.scope == .public)
    }

    @Test func aZoneSummaryCarriesItsRecordSharesWithTheirRoots() async throws {
        let simulation = try Simulation(setup: SimulationSetup(users: ["alice", "bob"], devices: [.init(name: "iPhone", user: "alice")]))
        let iPhone = try #require(simulation.device(named: "iPhone"))
        await simulation.createZone("Notes", on: iPhone)
        await simulation.save(note("n1"), on: iPhone)
        let privateDatabase = DatabaseID(container: simulation.container, environment: .development, scope: .private)
        try simulation.server.withEngine { (engine) throws(CloudError) in
            _ = try engine.saveShare(
                caller: Caller(user: "alice"), database: privateDatabase, zoneID: notes, shareName: "share-n1", rootRecordName: "n1",
                ShareSave(publicPermission: .none, invitations: [.init(user: "bob", permission: .readOnly)]))
        }
        let shares = try #require(try await simulation.serverObserver.zoneSummaries(user: "alice", environment: .development).first { $0.zoneID == notes }?.shares)
        #expect(shares.map(\.recordName) == ["share-n1"] && shares.first?.rootRecordName == "n1" && shares.first?.isZoneWide == false)
        #expect(shares.first?.participants.map(\.user) == ["alice", "bob"])
    }

    @Test func removedZonesKeepTheirReasonUntilCreatedAgain() async throws {
        let (simulation, iPhone) = try await world()
        await simulation.purgeZone(notes, on: iPhone)
        #expect(try await simulation.serverObserver.removedZones(user: "alice", environment: .development)
            == [ServerRemovedZone(scope: .private, zoneID: notes, reason: .purged)])
        await simulation.createZone("Notes", on: iPhone)
        #expect(try await simulation.serverObserver.removedZones(user: "alice", environment: .development).isEmpty)
    }

    @Test func pendingNotificationsShowWhatIsOnItsWayToADevice() async throws {
        let simulation = try Simulation(setup: SimulationSetup(
            users: ["alice"], devices: [.init(name: "iPhone", user: "alice"), .init(name: "Mac", user: "alice")]))
        let iPhone = try #require(simulation.device(named: "iPhone"))
        let mac = try #require(simulation.device(named: "Mac"))
        await simulation.subscribe(.database(DatabaseSubscription(subscriptionID: "all")), in: .private, on: mac)
        await simulation.createZone("Notes", on: iPhone)
        await simulation.settle()
        await simulation.save(note("n1"), on: iPhone)
        let pending = await simulation.serverObserver.pendingNotifications(forDevice: mac.deviceID)
        #expect(pending.map(\.notification.subscriptionID) == ["all"])
        await simulation.settle()
        #expect(await simulation.serverObserver.pendingNotifications(forDevice: mac.deviceID).isEmpty)
    }
}

@Suite struct PushMailboxTests {
    @Test func aWaitReturnsAtOnceWhenMailIsThere() async {
        let mailbox = PushMailbox()
        mailbox.post(.pollRecovered)
        #expect(await mailbox.wait(timeout: .seconds(60)))
        #expect(mailbox.drain() == [.pollRecovered])
        #expect(mailbox.isEmpty)
    }

    @Test func aWaitWithNoTimeLeftAndNoMailSaysSo() async {
        #expect(await PushMailbox().wait(timeout: .zero) == false)
    }

    @Test func aPostFromAnotherTaskWakesTheWaiter() async {
        let mailbox = PushMailbox()
        async let woke = mailbox.wait(timeout: .seconds(600))
        let poster = Task { mailbox.post(.pollFailed(CloudError(.networkFailure, "gone"))) }
        await poster.value
        #expect(await woke)
        #expect(mailbox.drain() == [.pollFailed(CloudError(.networkFailure, "gone"))])
    }

    @Test func cancellingAWaitEndsIt() async {
        let mailbox = PushMailbox()
        let waiter = Task { await mailbox.wait(timeout: .seconds(600)) }
        waiter.cancel()
        #expect(await waiter.value == false)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
