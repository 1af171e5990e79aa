import SyncCore
import SyncServer
import Testing

@Suite struct PushChannelTests {
    /// Window 100 ms, latency 50 ms.
    let f = PushFixture()

    private func setUp(_ subscriptions: [Subscription], zones: [RecordZoneID] = [zone("Notes")]) async throws -> InProcessCloudService {
        let phone = try await f.device("alice", "phone")
        _ = try await f.device("alice", "laptop")
        try await phone.makeZones(zones)
        try await phone.subscribe(subscriptions)
        _ = f.events()
        return phone
    }

    @Test func notificationArrivesAfterCoalescingWindowPlusLatency() async throws {
        let phone = try await setUp([.database(DatabaseSubscription(subscriptionID: "db"))])
        let start = f.now
        try await phone.put([note("a", in: zone("Notes"))])
        #expect(f.server.nextDeliveryTime == start + 150)
        #expect(f.advance(by: 149).isEmpty)
        let deliveries = f.advance(by: 1)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.deliveredAt == start + 150)
        #expect(deliveries.first?.latency == 150)
        #expect(f.server.nextDeliveryTime == nil)
    }

    @Test func waitingNotificationsOfSameSubscriptionAndZoneMergeIntoTheNewest() async throws {
        let phone = try await setUp([.database(DatabaseSubscription(subscriptionID: "db"))])
        try await phone.put([note("a", in: zone("Notes"))])
        f.clock.advance(by: 40)
        try await phone.put([note("b", in: zone("Notes"))])
        f.clock.advance(by: 40)
        try await phone.put([note("c", in: zone("Notes"))])
        let events = f.events()
        let created = events.compactMap { if case .notificationCreated(_, let n, _) = $0.kind { n.notificationID } else { nil } }
        #expect(created.count == 3)
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.notification.coalescedCount == 3)
        #expect(deliveries.first?.notification.notificationID == created.last, "the survivor is the newest notification")
        #expect(deliveries.first?.latency == 150, "merging does not postpone the oldest change's delivery")
        #expect(deliveries.first.map { $0.lastChangeAt - $0.firstChangeAt } == 80)
        let merges = events.filter { if case .coalesced = $0.kind { true } else { false } }
        #expect(merges.count == 2)
    }

    @Test func notificationsAfterTheWindowClosedAreNotMerged() async throws {
        let phone = try await setUp([.database(DatabaseSubscription(subscriptionID: "db"))])
        try await phone.put([note("a", in: zone("Notes"))])
        f.clock.advance(by: 120)  // first one is sent at 100, in transit until 150
        try await phone.put([note("b", in: zone("Notes"))])
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.map(\.notification.coalescedCount) == [1, 1])
    }

    @Test func databaseSubscriptionCollapsesPerZone() async throws {
        let phone = try await setUp([.database(DatabaseSubscription(subscriptionID: "db"))], zones: [zone("A"), zone("B")])
        try await phone.put([note("a1", in: zone("A"))])
        try await phone.put([note("b1", in: zone("B"))])
        try await phone.put([note("a2", in: zone("A"))])
        let deliveries = f.advance(by: 1_000)
        #expect(deliveries.count == 2)
        #expect(deliveries.map(\.notification.coalescedCount).sorted() == [1, 2])
    }

    @Test func queryNotificationsCollapsePerRecordUnlessCollapseIDKeyIsGiven() async throws {
        let phone = try await setUp([
            .query(QuerySubscription(subscriptionID: "per-record", recordType: "Note", options: [.firesOnRecordCreation, .firesOnRecordUpdate])),
            .query(QuerySubscription(
                subscriptionID: "keyed", recordType: "Note", options: [.firesOnRecordCreation, .firesOnRecordUpdate],
                notificationInfo: NotificationInfo(collapseIDKey: "notes"))),
        ])
        try await phone.put([note("a", in: zone("Notes"), ["n": 1])])
        try await phone.put([note("a", in: zone("Notes"), ["n": 2])])
        try await phone.put([note("b", in: zone("Notes"), ["n": 3])])
        let deliveries = f.advance(by: 1_000)
        let perRecord = deliveries.filter { $0.notification.subscriptionID == "per-record" }
        #expect(perRecord.map(\.notification.coalescedCount).sorted() == [1, 2])
        let keyed = deliveries.filter { $0.notification.subscriptionID == "keyed" }
        #expect(keyed.map(\.notification.coalescedCount) == [3])
        guard case .query(let survivor) = keyed.first?.notification else { Issue.record("expected a query notification"); return }
        #expect(survivor.recordID.recordName == "b")
    }

    @Test func offlineDeviceKeepsOnlyItsLatestNotificationAndGetsItWhenBackOnline() async throws {
        let phone = try await setUp(
            [.database(DatabaseSubscription(subscriptionID: "db")), .recordZone(RecordZoneSubscription(subscriptionID: "zone", zoneID: zone("B")))],
            zones: [zone("A"), zone("B")])
        try f.server.setOnline("laptop", false)
        try await phone.put([note("a", in: zone("A"))])  // db ×1
        f.advance(by: 500)
        try await phone.put([note("b", in: zone("B"))])  // db ×1, zone ×1
        f.advance(by: 500)
        #expect(try f.server.receiveNotifications(for: "laptop").isEmpty)
        let pending = f.server.pendingNotifications(for: "laptop")
        #expect(pending.count == 1)
        #expect(pending.first?.state == .heldWhileOffline)
        #expect(pending.first?.notification.coalescedCount == 3, "the held notification still counts every notification it replaced")
        let createdIDs = f.events().compactMap { if case .notificationCreated(_, let n, _) = $0.kind { n.notificationID } else { nil } }
        #expect(pending.first?.notification.notificationID == createdIDs.last)

        f.clock.advance(by: 1_000)
        #expect(try f.server.setOnline("laptop", true).isEmpty)
        #expect(f.server.nextDeliveryTime == f.now + 50)
        let deliveries = f.advance(by: 50)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.notification.coalescedCount == 3)
        #expect(deliveries.first?.latency == 2_050, "measured from the oldest change it stands for")
        #expect(try f.server.receiveNotifications(for: "laptop").count == 1)
    }

    @Test func goingOfflineFirstDeliversWhatWasAlreadyDue() async throws {
        let phone = try await setUp([.database(DatabaseSubscription(subscriptionID: "db"))])
        try await phone.put([note("a", in: zone("Notes"))])
        f.clock.advance(by: 200)
        let flushed = try f.server.setOnline("laptop", false)
        #expect(flushed.count == 1)
        #expect(try f.server.receiveNotifications(for: "laptop").count == 1)
    }

    @Test func notificationOverFourKilobytesIsPrunedUntilItFits() async throws {
        let phone = try await setUp([.query(QuerySubscription(
            subscriptionID: "q", recordType: "Note", options: .firesOnRecordCreation,
            notificationInfo: NotificationInfo(desiredKeys: ["big", "medium", "small"])))])
        let big = String(repeating: "x", count: 3_000)
        let medium = String(repeating: "y", count: 1_500)
        try await phone.put([note("a", in: zone("Notes"), ["big": .string(big), "medium": .string(medium), "small": "s"])])
        let pruneEvents = f.events().compactMap { if case .pruned(_, _, let report) = $0.kind { report } else { nil } }
        #expect(pruneEvents.count == 1)
        #expect(pruneEvents.first?.droppedFields == ["big"], "the largest field goes first, and only as many as needed")
        let delivered = f.advance(by: 1_000).first?.notification
        guard case .query(let n) = delivered else { Issue.record("expected a query notification"); return }
        #expect(n.isPruned)
        #expect(n.recordFields == ["medium": .string(medium), "small": "s"])
        #expect(delivered.map(\.payloadSize).map { $0 <= 4096 } == true)
    }

    @Test func notificationUnderTheLimitIsNotPruned() async throws {
        let phone = try await setUp([.query(QuerySubscription(
            subscriptionID: "q", recordType: "Note", options: .firesOnRecordCreation, notificationInfo: NotificationInfo(desiredKeys: ["title"])))])
        try await phone.put([note("a", in: zone("Notes"), ["title": .string(String(repeating: "t", count: 3_000))])])
        guard case .query(let n) = f.advance(by: 1_000).first?.notification else { Issue.record("expected a query notification"); return }
        #expect(!n.isPruned)
        #expect(n.recordFields.count == 1)
    }

    @Test func pruningDropsEveryFieldWhenOneIsHuge() {
        var n = CloudNotification.query(QueryNotification(
            notificationID: "N", subscriptionID: "q", containerIdentifier: "c", databaseScope: .private, queryNotificationReason: .recordCreated,
            recordID: RecordID(recordName: "r", zoneID: zone("Z")),
            recordFields: ["a": .string(String(repeating: "a", count: 5_000)), "b": .bytes(.init(repeating: 1, count: 5_000))],
            alertBody: "hi"))
        let report = n.prune()
        #expect(report?.droppedFields == ["b", "a"])
        #expect(report?.droppedAlertBody == false)
        #expect(n.isPruned)
        #expect(n.alertBody == "hi")
        #expect(n.payloadSize <= CloudNotification.payloadLimit)
    }

    @Test func sameSeedGivesSameNotificationsAndEvents() async throws {
        func run(seed: UInt64) async throws -> [String] {
            let f = PushFixture(seed: seed)
            let phone = try await f.device("alice", "phone")
            _ = try await f.device("alice", "laptop")
            try await phone.makeZones([zone("A"), zone("B")])
            try await phone.subscribe([.database(DatabaseSubscription(subscriptionID: "db"))])
            for i in 0..<6 {
                try await phone.put([note("r\(i)", in: zone(i % 2 == 0 ? "A" : "B"))])
                f.clock.advance(by: 30)
            }
            f.advance(by: 1_000)
            return f.events().map(\.description)
        }
        let first = try await run(seed: 7)
        #expect(try await run(seed: 7) == first)
        #expect(try await run(seed: 8) != first, "notification IDs come from the seed")
    }

    @Test func eventsDescribeWhoWhatHowManyAndLatency() async throws {
        let phone = try await setUp([.database(DatabaseSubscription(subscriptionID: "db"))])
        try await phone.put([note("a", in: zone("Notes"))])
        try await phone.put([note("b", in: zone("Notes"))])
        f.advance(by: 1_000)
        let delivered = f.events().compactMap { if case .delivered(let d) = $0.kind { d } else { nil } }
        #expect(delivered.count == 1)
        #expect(delivered.first?.description.contains("alice/laptop after 150 ms") == true)
        #expect(delivered.first?.description.contains("×2") == true)
    }
}
