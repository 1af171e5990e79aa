import SyncCore
import SyncServer
import Testing

@Suite struct PushRoutingTests {
    let f = PushFixture()

    private func queryNotification(_ n: CloudNotification?) -> QueryNotification? {
        if case .query(let q) = n { return q }
        return nil
    }

    @Test func fiftyRecordsInOneCommitGiveOneZoneNotification() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.recordZone(RecordZoneSubscription(subscriptionID: "notes", zoneID: zone("Notes")))])
        try await phone.put((1...50).map { note("r\($0)", in: zone("Notes")) })
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.deviceID == "laptop")
        guard case .recordZone(let n) = deliveries.first?.notification else { Issue.record("expected a zone notification"); return }
        #expect(n.recordZoneID == zone("Notes"))
        #expect(n.databaseScope == .private)
        #expect(n.subscriptionID == "notes")
        #expect(n.containerIdentifier == PushFixture.container)
        #expect(n.coalescedCount == 1)
        #expect(try await laptop.receivePushNotifications() == [.recordZone(n)])
        #expect(try await laptop.receivePushNotifications().isEmpty, "receiving drains the device's inbox")
    }

    @Test func originatingDeviceIsNotNotifiedButTheUsersOtherDevicesAre() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.database(DatabaseSubscription(subscriptionID: "db"))])
        _ = f.events()
        try await phone.put([note("a", in: zone("Notes"))])
        f.advance(by: 1_000)
        #expect(try await phone.receivePushNotifications().isEmpty)
        #expect(try await laptop.receivePushNotifications().count == 1)
        #expect(f.events().contains { if case .originatorSkipped("phone", _) = $0.kind { true } else { false } })

        try await laptop.put([note("b", in: zone("Notes"))])
        f.advance(by: 1_000)
        #expect(try await phone.receivePushNotifications().count == 1)
        #expect(try await laptop.receivePushNotifications().isEmpty)
    }

    @Test func queryNotificationsCarryReasonRecordAndDesiredKeys() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.query(QuerySubscription(
            subscriptionID: "big", recordType: "Note", predicate: QueryPredicate([QueryFilter("n", .greaterThanOrEquals, 5)]),
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion],
            notificationInfo: NotificationInfo(alertBody: "changed", desiredKeys: ["title"])))])

        try await phone.put([note("a", in: zone("Notes"), ["n": 7, "title": "Hi", "body": "long"])])
        f.advance(by: 1_000)
        let created = queryNotification(try await laptop.receivePushNotifications().first)
        #expect(created?.queryNotificationReason == .recordCreated)
        #expect(created?.recordID == RecordID(recordName: "a", zoneID: zone("Notes")))
        #expect(created?.recordFields == ["title": "Hi"], "only desiredKeys are copied")
        #expect(created?.alertBody == "changed")

        try await phone.put([note("a", in: zone("Notes"), ["n": 8, "title": "Hey"])])
        f.advance(by: 1_000)
        let updated = queryNotification(try await laptop.receivePushNotifications().first)
        #expect(updated?.queryNotificationReason == .recordUpdated)
        #expect(updated?.recordFields == ["title": "Hey"])

        try await phone.put([note("a", in: zone("Notes"), ["n": 1])])  // stops matching: no notification
        f.advance(by: 1_000)
        #expect(try await laptop.receivePushNotifications().isEmpty)

        try await phone.put([note("b", in: zone("Notes"), ["n": 9, "title": "B"])])
        f.advance(by: 1_000)
        _ = try await laptop.receivePushNotifications()
        try await phone.remove(["b"], in: zone("Notes"))
        f.advance(by: 1_000)
        let deleted = queryNotification(try await laptop.receivePushNotifications().first)
        #expect(deleted?.queryNotificationReason == .recordDeleted)
        #expect(deleted?.recordID.recordName == "b")
        #expect(deleted?.recordFields.isEmpty == true)
    }

    @Test func queryMatchingSeveralRecordsOfOneCommitGivesOneNotificationStandingForAll() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.query(QuerySubscription(subscriptionID: "q", recordType: "Note", options: .firesOnRecordCreation))])
        try await phone.put([note("a", in: zone("Notes")), note("b", in: zone("Notes")), note("t", in: zone("Notes"), type: "Tag"), note("c", in: zone("Notes"))])
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.count == 1)
        let n = queryNotification(deliveries.first?.notification)
        #expect(n?.coalescedCount == 3)
        #expect(n?.recordID.recordName == "c", "the notification names the last matching record")
        #expect(try await laptop.receivePushNotifications().count == 1)
    }

    @Test func firesOnceSubscriptionIsDeletedAfterItsFirstNotification() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.query(QuerySubscription(subscriptionID: "once", recordType: "Note", options: [.firesOnRecordCreation, .firesOnce]))])
        try await phone.put([note("a", in: zone("Notes"))])
        #expect(try await phone.fetchSubscriptions(in: .private, ids: nil).isEmpty)
        try await phone.put([note("b", in: zone("Notes"))])
        f.advance(by: 1_000)
        let received = try await laptop.receivePushNotifications()
        #expect(received.count == 1)
        #expect(queryNotification(received.first)?.recordID.recordName == "a")
        #expect(f.events().contains { $0.kind == .subscriptionDeleted(user: "alice", subscriptionID: "once") })
    }

    @Test func sharedZoneChangesFireParticipantsSharedDatabaseAndOwnersPrivateSubscriptions() async throws {
        let alicePhone = try await f.device("alice", "alice-phone")
        let bobPhone = try await f.device("bob", "bob-phone")
        let bobLaptop = try await f.device("bob", "bob-laptop")
        let aliceLaptop = try await f.device("alice", "alice-laptop")
        let shared = zone("Trip")
        try await alicePhone.makeZones([shared])
        try await alicePhone.shareZone(shared, with: ["bob"])
        try await alicePhone.subscribe([.database(DatabaseSubscription(subscriptionID: "alice-db"))])
        try await bobPhone.subscribe([.database(DatabaseSubscription(subscriptionID: "bob-shared"))], in: .shared)
        try await bobPhone.subscribe([.database(DatabaseSubscription(subscriptionID: "bob-private"))], in: .private)

        try await alicePhone.put([note("a", in: shared)])
        f.advance(by: 1_000)
        let bobGot = try await bobLaptop.receivePushNotifications()
        #expect(bobGot.map(\.subscriptionID) == ["bob-shared"])
        #expect(bobGot.first?.databaseScope == .shared)
        #expect(try await bobPhone.receivePushNotifications().map(\.subscriptionID) == ["bob-shared"])
        #expect(try await aliceLaptop.receivePushNotifications().map(\.subscriptionID) == ["alice-db"])

        try await bobPhone.put([note("b", in: shared)], in: .shared)
        f.advance(by: 1_000)
        #expect(try await alicePhone.receivePushNotifications().first?.databaseScope == .private)
        #expect(try await bobLaptop.receivePushNotifications().map(\.subscriptionID) == ["bob-shared"])
        #expect(try await bobPhone.receivePushNotifications().isEmpty, "bob's phone made the change")
    }

    @Test func publicQuerySubscriptionsOfEveryUserFire() async throws {
        let alice = try await f.device("alice", "alice-phone")
        let bob = try await f.device("bob", "bob-phone")
        try await bob.subscribe([.query(QuerySubscription(subscriptionID: "posts", recordType: "Post", options: .firesOnRecordCreation))], in: .public)
        try await alice.put([note("p1", in: .defaultZone(ownerName: ""), type: "Post")], in: .public)
        f.advance(by: 1_000)
        let got = try await bob.receivePushNotifications()
        #expect(got.count == 1)
        #expect(got.first?.databaseScope == .public)
        #expect(try await alice.receivePushNotifications().isEmpty, "alice has no subscription")
    }

    @Test func recordTypeLimitsDatabaseAndZoneSubscriptions() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([
            .database(DatabaseSubscription(subscriptionID: "db-notes", recordType: "Note")),
            .recordZone(RecordZoneSubscription(subscriptionID: "zone-tags", zoneID: zone("Notes"), recordType: "Tag")),
        ])
        try await phone.put([note("t", in: zone("Notes"), type: "Tag")])
        f.advance(by: 1_000)
        #expect(try await laptop.receivePushNotifications().map(\.subscriptionID) == ["zone-tags"])
        try await phone.put([note("n", in: zone("Notes"))])
        f.advance(by: 1_000)
        #expect(try await laptop.receivePushNotifications().map(\.subscriptionID) == ["db-notes"])
    }

    @Test func defaultZoneFiresQueryButNotDatabaseSubscriptions() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.subscribe([
            .database(DatabaseSubscription(subscriptionID: "db")),
            .query(QuerySubscription(subscriptionID: "q", recordType: "Note", options: .firesOnRecordCreation)),
        ])
        try await phone.put([note("a", in: .defaultZone(ownerName: "alice"))])
        f.advance(by: 1_000)
        #expect(try await laptop.receivePushNotifications().map(\.subscriptionID) == ["q"])
    }

    @Test func queryLimitedToAZoneIgnoresOtherZones() async throws {
        let phone = try await f.device("alice", "phone")
        let laptop = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("A"), zone("B")])
        try await phone.subscribe([.query(QuerySubscription(subscriptionID: "q", recordType: "Note", zoneID: zone("A"), options: .firesOnRecordCreation))])
        try await phone.put([note("b", in: zone("B"))])
        try await phone.put([note("a", in: zone("A"))])
        f.advance(by: 1_000)
        let got = try await laptop.receivePushNotifications()
        #expect(got.count == 1)
        #expect(got.first?.zoneID == zone("A"))
    }

    @Test func deviceRegisteredForAnotherContainerGetsNothing() async throws {
        let phone = try await f.device("alice", "phone")
        try f.server.registerDevice(user: "alice", deviceID: "watch", container: "iCloud.other")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.database(DatabaseSubscription(subscriptionID: "db"))])
        try await phone.put([note("a", in: zone("Notes"))])
        f.advance(by: 1_000)
        #expect(try f.server.receiveNotifications(for: "watch").isEmpty)
    }

    @Test func connectionWithoutDeviceCannotRegisterForPush() async throws {
        let alice = try f.server.connect(user: "alice")
        await #expect(throws: CloudError.self) { try await alice.registerForPushNotifications() }
    }

    /// Routing looks only at subscriptions whose database, zone and record
    /// type fit the commit, however many others there are.
    @Test(arguments: [10, 10_000])
    func routingExaminesOnlySubscriptionsThatCanMatch(others: Int) async throws {
        let phone = try await f.device("alice", "phone")
        _ = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try f.server.withPush { (push) throws(CloudError) in
            let privateDB = DatabaseID(container: PushFixture.container, scope: .private)
            let publicDB = DatabaseID(container: PushFixture.container, scope: .public)
            var batch: [Subscription] = []
            func flush(_ user: String, _ db: DatabaseID) throws(CloudError) {
                for r in try push.modifySubscriptions(user: user, database: db, saving: batch, deleting: []) { _ = try r.get() }
                batch = []
            }
            for i in 0..<others {
                switch i % 4 {
                case 0: batch.append(.recordZone(RecordZoneSubscription(subscriptionID: "z\(i)", zoneID: zone("Other\(i)", "alice"))))
                case 1: batch.append(.query(QuerySubscription(subscriptionID: "q\(i)", recordType: "Type\(i)", options: .firesOnRecordCreation)))
                case 2: batch.append(.database(DatabaseSubscription(subscriptionID: "d\(i)", recordType: "Type\(i)")))
                default: batch.append(.query(QuerySubscription(subscriptionID: "p\(i)", recordType: "Note", zoneID: zone("Other\(i)"), options: .firesOnRecordCreation)))
                }
                if batch.count == 400 { try flush("alice", privateDB) }
            }
            try flush("alice", privateDB)
            // Public query subscriptions on the same record type: another database.
            for i in 0..<(others / 4) {
                batch.append(.query(QuerySubscription(subscriptionID: "pub\(i)", recordType: "Note", options: .firesOnRecordCreation)))
                if batch.count == 400 { try flush("carol", publicDB) }
            }
            try flush("carol", publicDB)
        }
        try await phone.subscribe([.recordZone(RecordZoneSubscription(subscriptionID: "target", zoneID: zone("Notes")))])
        let before = f.server.withPush { $0.statistics }
        try await phone.put([note("a", in: zone("Notes"))])
        let after = f.server.withPush { $0.statistics }
        #expect(after.candidatesExamined - before.candidatesExamined == 1)
        #expect(after.notificationsCreated - before.notificationsCreated == 1)
        #expect(f.advance(by: 1_000).map(\.notification.subscriptionID) == ["target"])
    }
}
