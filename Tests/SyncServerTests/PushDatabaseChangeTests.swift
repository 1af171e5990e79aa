import SyncCore
import SyncServer
import Testing

/// Database subscriptions fire for zone-level changes too: a zone created,
/// deleted, purged, dropped by an encrypted-data reset, shared in or revoked.
/// "Use a database subscription when you don't know what record zones exist."
@Suite struct PushDatabaseChangeTests {
    let f = PushFixture()

    /// alice on "phone" and "laptop", bob on "bobPhone", carol on "carolPhone";
    /// each user has a database subscription "<user>-private" and "<user>-shared".
    private func world() async throws -> (phone: InProcessCloudService, laptop: InProcessCloudService, bob: InProcessCloudService, carol: InProcessCloudService) {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        let bob = try await f.device("bob", "bobPhone")
        let carol = try await f.device("carol", "carolPhone")
        for (service, user) in [(phone, "alice"), (bob, "bob"), (carol, "carol")] {
            try await service.subscribe([.database(DatabaseSubscription(subscriptionID: "\(user)-private"))], in: .private)
            try await service.subscribe([.database(DatabaseSubscription(subscriptionID: "\(user)-shared"))], in: .shared)
        }
        return (phone, laptop, bob, carol)
    }

    /// What arrives within a second, as "device subscription", sorted.
    private func arrivals() -> [String] {
        f.advance(by: 1_000).map { delivery in
            "\(delivery.deviceID) \(delivery.notification.subscriptionID)"
        }.sorted()
    }

    private func database(_ n: CloudNotification?) -> DatabaseNotification? {
        if case .database(let d) = n { return d }
        return nil
    }

    @Test func creatingAZoneFiresTheOwnersPrivateDatabaseSubscriptionsExceptOnTheCreatingDevice() async throws {
        let w = try await world()
        _ = f.events()
        try await w.laptop.makeZones([zone("Notes")])
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.map(\.deviceID) == ["phone"])
        let n = try #require(database(deliveries.first?.notification))
        #expect(n.subscriptionID == "alice-private")
        #expect(n.databaseScope == .private)
        #expect(n.containerIdentifier == PushFixture.container)
        #expect(n.coalescedCount == 1)
        #expect(f.events().contains { if case .originatorSkipped("laptop", _) = $0.kind { true } else { false } })
        #expect(f.server.withPush { $0.statistics.databaseChangesObserved } == 1)

        // Creating a zone that exists changes nothing, so nothing fires.
        try await w.laptop.makeZones([zone("Notes")])
        #expect(arrivals().isEmpty)
    }

    @Test func deletingASharedZoneFiresTheOwnersPrivateAndEachParticipantsSharedSubscriptions() async throws {
        let w = try await world()
        try await w.laptop.makeZones([zone("Notes")])
        try await w.laptop.shareZone(zone("Notes"), with: ["bob", "carol"])
        _ = arrivals()

        let results = try await w.laptop.modifyRecordZones(in: .private, saving: [], deleting: [zone("Notes")])
        _ = try results.first?.get()
        #expect(arrivals() == ["bobPhone bob-shared", "carolPhone carol-shared", "phone alice-private"])
    }

    @Test(arguments: [ZoneDeletionReason.purged, .encryptedDataReset])
    func purgeAndResetAreSettingsActionsThatNotifyEveryDeviceOfTheUser(reason: ZoneDeletionReason) async throws {
        let w = try await world()
        try await w.laptop.makeZones([zone("Notes")])
        try await w.laptop.shareZone(zone("Notes"), with: ["bob"])
        _ = arrivals()

        if reason == .purged {
            try await w.laptop.purgeRecordZone(in: .private, zone("Notes"))
        } else {
            try await w.laptop.encryptedDataReset()
        }
        // The laptop is where the user pressed the button, and hears of it too.
        #expect(arrivals() == ["bobPhone bob-shared", "laptop alice-private", "phone alice-private"])
    }

    @Test func anEncryptedDataResetGivesOneNotificationPerZone() async throws {
        let w = try await world()
        try await w.laptop.makeZones([zone("A"), zone("B"), zone("C")])
        _ = arrivals()
        try await w.laptop.encryptedDataReset()
        let deliveries = f.advance(by: 1_000).filter { $0.deviceID == "phone" }
        // Three zones went: three changes, collapsed per zone, so three notifications.
        #expect(deliveries.count == 3)
        #expect(deliveries.allSatisfy { $0.notification.subscriptionID == "alice-private" && $0.notification.coalescedCount == 1 })
    }

    @Test func sharingAndRevokingFireOnlyTheParticipantsSharedDatabaseSubscriptions() async throws {
        let w = try await world()
        try await w.laptop.makeZones([zone("Notes")])
        _ = arrivals()

        try await w.phone.shareZone(zone("Notes"), with: ["bob"])
        let shared = f.advance(by: 1_000)
        #expect(shared.map(\.deviceID) == ["bobPhone"])
        let n = try #require(database(shared.first?.notification))
        #expect(n.subscriptionID == "bob-shared")
        #expect(n.databaseScope == .shared)

        // Sharing again with someone already in changes nothing.
        try await w.phone.shareZone(zone("Notes"), with: ["bob"])
        #expect(arrivals().isEmpty)

        try await w.phone.revokeShare(zone("Notes"), from: ["bob", "carol"])
        #expect(arrivals() == ["bobPhone bob-shared"], "carol never had the zone: her database did not change")
    }

    @Test func zoneChangesFireDatabaseSubscriptionsWhateverTheirRecordType() async throws {
        let phone = try await f.device("alice", "phone")
        _ = try await f.device("alice", "laptop")
        try await phone.subscribe([.database(DatabaseSubscription(subscriptionID: "tasks", recordType: "Task"))])
        try await phone.makeZones([zone("Notes")])
        #expect(arrivals() == ["laptop tasks"])
    }

    @Test func aZoneChangeCoalescesWithRecordChangesOfTheSameZoneButNotOfOthers() async throws {
        let w = try await world()
        try await w.laptop.makeZones([zone("Notes")])
        try await w.laptop.put([note("a", in: zone("Notes"))])
        try await w.laptop.makeZones([zone("Other")])
        let deliveries = f.advance(by: 1_000).filter { $0.deviceID == "phone" }
        #expect(deliveries.map(\.notification.coalescedCount).sorted() == [1, 2])
        #expect(f.server.withPush { $0.statistics.coalesced } == 1)
    }

    @Test func collapseIDKeyMergesZoneChangesOfDifferentZones() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.subscribe([.database(DatabaseSubscription(
            subscriptionID: "all", notificationInfo: NotificationInfo(collapseIDKey: "everything")))])
        try await laptop.makeZones([zone("A"), zone("B")])
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.map(\.deviceID) == ["phone"])
        #expect(deliveries.first?.notification.coalescedCount == 2)
    }

    @Test func zoneChangesInAnotherContainerWakeOnlyDevicesRegisteredThere() async throws {
        let phone = try await f.device("alice", "phone")
        let other = try f.server.connect(user: "alice", deviceID: "otherApp", container: "iCloud.com.example.Other")
        try await other.registerForPushNotifications()
        try await other.subscribe([.database(DatabaseSubscription(subscriptionID: "other-db"))])
        try await phone.subscribe([.database(DatabaseSubscription(subscriptionID: "db"))])
        let laptop = try f.server.connect(user: "alice", deviceID: "laptop")
        try await laptop.makeZones([zone("Notes")])
        #expect(arrivals() == ["phone db"])
    }

    // MARK: Record zone subscriptions go with their zone

    @Test(arguments: ZoneDeletionReason.allCases)
    func aRecordZoneSubscriptionIsDeletedWithItsZoneWithoutFiring(reason: ZoneDeletionReason) async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await laptop.makeZones([zone("Notes"), zone("Keep")])
        try await phone.subscribe([
            .recordZone(RecordZoneSubscription(subscriptionID: "notes", zoneID: zone("Notes"))),
            .recordZone(RecordZoneSubscription(subscriptionID: "notes-tasks", zoneID: zone("Notes"), recordType: "Task")),
            .recordZone(RecordZoneSubscription(subscriptionID: "keep", zoneID: zone("Keep"))),
            .database(DatabaseSubscription(subscriptionID: "db")),
        ])
        _ = f.events()

        switch reason {
        case .deleted: _ = try await laptop.modifyRecordZones(in: .private, saving: [], deleting: [zone("Notes")]).first?.get()
        case .purged: try await laptop.purgeRecordZone(in: .private, zone("Notes"))
        case .encryptedDataReset:
            // A reset takes every zone: both zone subscriptions go.
            try await laptop.encryptedDataReset()
        }
        let remaining = try await phone.fetchSubscriptions(in: .private, ids: nil).map { try $0.get().subscriptionID }
        #expect(remaining == (reason == .encryptedDataReset ? ["db"] : ["db", "keep"]))
        let removed = f.events().compactMap { event -> String? in
            if case .subscriptionRemovedWithZone("alice", let id, _) = event.kind { id } else { nil }
        }
        #expect(removed == (reason == .encryptedDataReset ? ["keep", "notes", "notes-tasks"] : ["notes", "notes-tasks"]))
        // Only the database subscription announces the zone going away.
        let fired = f.advance(by: 1_000).map(\.notification.subscriptionID)
        #expect(Set(fired) == ["db"])

        // A zone made again under the same name is a new zone: the old subscription does not come back.
        try await laptop.makeZones([zone("Notes")])
        try await laptop.put([note("a", in: zone("Notes"))])
        #expect(Set(f.advance(by: 1_000).map(\.notification.subscriptionID)) == ["db"])
    }

    @Test func anotherUsersZoneOfTheSameNameKeepsItsSubscriptions() async throws {
        let alice = try await f.device("alice", "phone")
        let bob = try await f.device("bob", "bobPhone")
        try await alice.makeZones([zone("Notes")])
        try await bob.makeZones([zone("Notes", "bob")])
        try await bob.subscribe([.recordZone(RecordZoneSubscription(subscriptionID: "notes", zoneID: zone("Notes", "bob")))])
        _ = try await alice.modifyRecordZones(in: .private, saving: [], deleting: [zone("Notes")]).first?.get()
        let remaining = try await bob.fetchSubscriptions(in: .private, ids: nil).map { try $0.get().subscriptionID }
        #expect(remaining == ["notes"])
    }
}
