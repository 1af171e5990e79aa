import Foundation
import SyncCore
import SyncNetwork

/// One push-latency measurement for `bench --http` and `bench --http --nodes`:
/// the listener subscribes to `zone`, then for each sample opens a long-poll,
/// the writer saves one record, and the sample is the milliseconds from sending
/// the save to the long-poll answering with its notification.
enum PushLatencySampling {
    static func measure(
        listener: HTTPCloudService, writer: HTTPCloudService, zone: RecordZoneID,
        subscriptionID: String, recordPrefix: String, samples pushSamples: Int, timeLimit: Double
    ) async throws -> [Double] {
        try await listener.registerForPushNotifications()
        for result in try await listener.modifySubscriptions(
            in: .private, saving: [.recordZone(RecordZoneSubscription(subscriptionID: subscriptionID, zoneID: zone))], deleting: []) {
            _ = try result.get()
        }
        _ = try await listener.pollWebcourier(timeout: 0)
        var samples: [Double] = []
        let start = ContinuousClock.now
        for i in 0..<pushSamples where ContinuousClock.now.seconds(since: start) < timeLimit {
            async let answer = listener.pollWebcourier(timeout: 5)
            // Let the poll reach its server first, so the figure is the push path, not a queued notification.
            try await Task.sleep(for: .milliseconds(2))
            let sent = ContinuousClock.now
            let record = Record(recordID: RecordID(recordName: "\(recordPrefix)\(i)", zoneID: zone), recordType: "Item", fields: ["n": .int64(Int64(i))])
            _ = try await writer.modifyRecords(in: .private, zoneID: zone, operations: [.save(record, policy: .allKeys)])[0].get()
            if try await answer != nil { samples.append(ContinuousClock.now.seconds(since: sent) * 1000) }
        }
        _ = try? await listener.modifySubscriptions(in: .private, saving: [], deleting: [subscriptionID])
        return samples
    }
}
