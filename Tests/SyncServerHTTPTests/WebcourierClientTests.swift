import Foundation
import SyncCore
import SyncNetwork
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// Our own client of the web courier (``HTTPCloudService``) against the
/// server in this process: one notification per answer, every one once.
@Suite struct WebcourierClientTests {
    @Test func theClientTakesWaitingNotificationsOnePerPollEachOnceWithWhenTheServerQueuedThem() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 5))
        defer { server.stop() }
        let base = URL(string: "http://127.0.0.1:\(server.port)")!
        let writer = HTTPCloudService(baseURL: base, webAuthToken: server.aliceToken, userRecordName: "alice", container: "iCloud.com.example.Courier")
        // Creating the device is enough to poll (no tokens/register), as CloudKit JS does.
        let phone = try await writer.withNewDevice()
        let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        for result in try await writer.modifyRecordZones(in: .private, saving: [notes], deleting: []) { _ = try result.get() }
        let subscriptions: [Subscription] = [
            .database(DatabaseSubscription(subscriptionID: "db")), .recordZone(RecordZoneSubscription(subscriptionID: "notes", zoneID: notes)),
        ]
        for result in try await writer.modifySubscriptions(in: .private, saving: subscriptions, deleting: []) { _ = try result.get() }
        let before = SystemClock().now()
        for name in ["a", "b"] {
            let record = Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note", fields: ["title": .string(name)])
            _ = try await writer.modifyRecords(in: .private, zoneID: notes, operations: [.save(record, policy: .allKeys)])[0].get()
        }

        // Four notifications (two subscriptions, two commits), each once.
        var received: [CloudNotification] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while received.count < 4, ContinuousClock.now < deadline {
            received += try await phone.waitForPushNotifications(timeout: 10)
        }
        #expect(received.count == 4, "\(received)")
        #expect(Set(received.map(\.notificationID)).count == 4, "no notification twice")
        #expect(Set(received.map(\.subscriptionID)) == ["db", "notes"])
        // Everything was acknowledged by the polls after it: nothing more comes.
        #expect(try await phone.waitForPushNotifications(timeout: 0).isEmpty)

        // One more change: one poll, one notification, with when the server queued it.
        let record = Record(recordID: RecordID(recordName: "c", zoneID: notes), recordType: "Note", fields: [:])
        _ = try await writer.modifyRecords(in: .private, zoneID: notes, operations: [.save(record, policy: .allKeys)])[0].get()
        let first = try #require(try await phone.pollWebcourier(timeout: 10))
        let queuedAt = try #require(first.queuedAt)
        #expect(queuedAt >= before && queuedAt <= SystemClock().now())
        let latency = try #require(first.latency(receivedAt: SystemClock().now()))
        #expect(latency >= 0 && latency < 60_000)
    }
}
