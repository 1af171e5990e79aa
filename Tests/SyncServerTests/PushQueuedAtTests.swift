import SyncCore
import SyncServer
import Testing

/// When the server queued a delivered notification (what a network device
/// measures its push latency from): kept per inbox entry, through a
/// checkpoint, and gone with the acknowledgement.
@Suite struct PushQueuedAtTests {
    let f = PushFixture()

    @Test func aDeliveredNotificationKnowsWhenItsFirstChangeWasQueuedThroughACheckpointUntilAcknowledged() async throws {
        let phone = try await f.device("alice", "phone")
        _ = try await f.device("alice", "laptop")
        try await phone.makeZones([zone("Notes")])
        try await phone.subscribe([.recordZone(RecordZoneSubscription(subscriptionID: "notes", zoneID: zone("Notes")))])
        let committedAt = f.now
        try await phone.put([note("a", in: zone("Notes"))])
        f.clock.advance(by: 30)
        try await phone.put([note("b", in: zone("Notes"))])  // coalesces into the first (window 100 ms)
        let deliveries = f.advance(by: 1_000)
        let delivered = try #require(deliveries.first { $0.deviceID == "laptop" })
        #expect(delivered.notification.coalescedCount == 2)
        let id = delivered.notification.notificationID
        #expect(f.server.withPush { $0.queuedAt(ofNotification: id, for: "laptop") } == committedAt, "the oldest change it stands for")

        // A checkpoint keeps it.
        let file = f.server.withPush { $0.exportState(includingDevices: true, reseeding: true) }
        let restored = PushFixture()
        try restored.server.withPush { (push) throws(CloudError) in try push.importState(file, restoringDevices: true) }
        #expect(restored.server.withPush { $0.queuedAt(ofNotification: id, for: "laptop") } == committedAt)

        // Acknowledged: forgotten.
        try f.server.withPush { (push) throws(CloudError) in _ = try push.acknowledgeNotifications(for: "laptop", notificationIDs: [id]) }
        #expect(f.server.withPush { $0.queuedAt(ofNotification: id, for: "laptop") } == nil)
    }
}
