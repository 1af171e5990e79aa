import Foundation
import SyncCore
import SyncServer
import Testing

/// Zone-level changes (a zone shared in or revoked, deleted, purged) wake
/// devices through their database subscriptions, and the fetch the
/// notification schedules brings the zone change into the local store.
@Suite struct PushZoneChangeFetchTests {
    let fixture = Fixture()
    let directory: TemporaryDirectory
    let notes = Fixture.zone("Notes")

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A device of `user`, registered for push, with a database subscription
    /// in its private and its shared database.
    private func device(_ user: String, _ name: String, kind: StoreKind = .memory) async throws -> TestDevice {
        let device = try TestDevice(service: fixture.connect(user, device: name), clock: fixture.clock, kind: kind, directory: directory)
        try fixture.server.registerDevice(user: user, deviceID: name)
        try await device.service.subscribe([.database(DatabaseSubscription(subscriptionID: "\(user)-private"))], in: .private)
        try await device.service.subscribe([.database(DatabaseSubscription(subscriptionID: "\(user)-shared"))], in: .shared)
        return device
    }

    /// Delivers everything; hands each device its notifications; returns how many each got.
    @discardableResult
    private func deliver(to devices: [String: TestDevice]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for delivery in fixture.server.deliverEverything(clock: fixture.clock) {
            counts[delivery.deviceID, default: 0] += 1
            devices[delivery.deviceID]?.engine.notificationReceived(delivery.notification)
        }
        return counts
    }

    @Test(arguments: StoreKind.allCases)
    func sharingAZoneWakesTheParticipantsDevicesAndTheirFetchSeesTheZone(kind: StoreKind) async throws {
        let alice = try fixture.connect("alice", device: "laptop")
        try await alice.createZones([notes])
        try await alice.put([Fixture.note("n1", in: notes), Fixture.note("n2", in: notes)])
        let bob = try await device("bob", "bobPhone", kind: kind)
        let bobTablet = try await device("bob", "bobTablet")
        let devices = ["bobPhone": bob, "bobTablet": bobTablet]
        for d in [bob, bobTablet] { try await d.engine.fetchChanges() }
        #expect(try bob.store.knownZones(in: .shared).isEmpty)

        try await alice.shareZone(notes, with: ["bob"])
        #expect(deliver(to: devices) == ["bobPhone": 1, "bobTablet": 1])
        for d in [bob, bobTablet] {
            #expect(d.engine.isFetchScheduled)
            await d.engine.runScheduledFetches()
            #expect(try d.store.knownZones(in: .shared).map(\.zoneID) == [notes])
            #expect(try d.cached(notes, scope: .shared).map(\.recordID.recordName) == ["n1", "n2"])
            #expect(d.engine.fetchRuns.last?.reason == .push)
            #expect(d.engine.fetchRuns.last?.changesApplied == 2)
        }

        try await alice.revokeShare(notes, from: ["bob"])
        #expect(deliver(to: devices) == ["bobPhone": 1, "bobTablet": 1])
        for d in [bob, bobTablet] {
            await d.engine.runScheduledFetches()
            #expect(try d.store.knownZones(in: .shared).isEmpty)
            #expect(try d.cached(notes, scope: .shared).isEmpty)
        }
    }

    @Test func deletingAZoneOnOneDeviceWakesTheOthersAndTheirFetchDropsIt() async throws {
        let phone = try await device("alice", "phone")
        let laptop = try await device("alice", "laptop")
        let devices = ["phone": phone, "laptop": laptop]
        try laptop.engine.saveZone(notes)
        try laptop.engine.save(Fixture.note("n1", in: notes))
        try await laptop.engine.sendChanges()
        #expect(deliver(to: devices) == ["phone": 1], "the zone and its record, coalesced; the laptop made them")
        await phone.engine.runScheduledFetches()
        #expect(try phone.cached(notes).map(\.recordID.recordName) == ["n1"])

        try laptop.engine.deleteZone(notes)
        try await laptop.engine.sendChanges()
        #expect(deliver(to: devices) == ["phone": 1])
        await phone.engine.runScheduledFetches()
        #expect(try phone.store.knownZones(in: .private).isEmpty)
        #expect(try phone.cached(notes).isEmpty)
        #expect(phone.engine.fetchRuns.map(\.reason) == [.push, .push])
    }

    @Test func aPurgeInSettingsWakesEveryDeviceOfTheUserIncludingTheOneUsedForIt() async throws {
        let phone = try await device("alice", "phone")
        let laptop = try await device("alice", "laptop")
        let devices = ["phone": phone, "laptop": laptop]
        try await phone.service.createZones([notes])
        try await phone.service.put([Fixture.note("n1", in: notes)])
        deliver(to: devices)
        for d in [phone, laptop] { try await d.engine.fetchChanges() }

        try await phone.service.purgeRecordZone(in: .private, notes)
        #expect(deliver(to: devices) == ["phone": 1, "laptop": 1])
        for d in [phone, laptop] {
            await d.engine.runScheduledFetches()
            #expect(try d.store.purgedZones(in: .private) == [notes])
            #expect(try d.cached(notes).isEmpty)
        }
    }
}
