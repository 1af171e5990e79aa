import SyncCore
import SyncServer

/// The push benchmarks of the subscriptions issue.
struct PushBenchmarkSuite {
    let container = "bench"
    let user = "bench"
    let zoneID = RecordZoneID(zoneName: "Target", ownerName: "bench")

    var database: DatabaseID { DatabaseID(container: container, scope: .private) }

    /// Seconds to save `saves` records to one zone with `subscriptions`
    /// subscriptions that cannot match (other zones, other record types).
    func routingSeconds(subscriptions: Int, saves: Int) throws -> Double {
        let clock = VirtualClock()
        let server = SimulatedServer(configuration: ServerConfiguration(seed: 3), clock: clock)
        let service = try server.connect(user: user, deviceID: "writer", container: container)
        try server.registerDevice(user: user, deviceID: "reader", container: container)
        try server.withCore { (core) throws(CloudError) in
            _ = try core.engine.modifyRecordZones(caller: Caller(user: user, deviceID: "writer"), database: database, saving: [zoneID], deleting: [])
            var batch: [Subscription] = []
            for i in 0..<subscriptions {
                if i % 2 == 0 {
                    batch.append(.recordZone(RecordZoneSubscription(
                        subscriptionID: "zone-\(i)", zoneID: RecordZoneID(zoneName: "Other\(i)", ownerName: user))))
                } else {
                    batch.append(.query(QuerySubscription(
                        subscriptionID: "query-\(i)", recordType: "OtherType\(i)", options: [.firesOnRecordCreation, .firesOnRecordUpdate])))
                }
                if batch.count == 400 || i == subscriptions - 1 {
                    _ = try core.push.modifySubscriptions(user: user, database: database, saving: batch, deleting: [])
                    batch = []
                }
            }
        }
        _ = service
        let start = ContinuousClock.now
        var next = 0
        while next < saves {
            let count = min(100, saves - next)
            let operations = (next..<(next + count)).map {
                RecordOperation(type: .forceReplace, record: Record(
                    recordID: RecordID(recordName: "r\($0)", zoneID: zoneID), recordType: "Item", fields: ["n": .int64(Int64($0))]))
            }
            _ = try server.withEngine { (engine) throws(CloudError) in
                try engine.modifyRecords(caller: Caller(user: user, deviceID: "writer"), database: database, zoneID: zoneID, operations: operations)
            }
            next += count
        }
        return ContinuousClock.now.seconds(since: start)
    }

    /// The best of three runs of both sizes, interleaved so machine noise hits both alike.
    func routingRatio(saves: Int) throws -> (few: Double, many: Double) {
        var few = Double.infinity
        var many = Double.infinity
        for _ in 0..<3 {
            few = min(few, try routingSeconds(subscriptions: 10, saves: saves))
            many = min(many, try routingSeconds(subscriptions: 10_000, saves: saves))
        }
        return (few, many)
    }

    /// A burst of `saves` single-record saves to one zone, one every
    /// millisecond of virtual time, with `devices` subscribed devices.
    func burst(saves: Int, devices: Int) throws -> (deliveries: Int, seconds: Double) {
        let clock = VirtualClock()
        let server = SimulatedServer(configuration: ServerConfiguration(seed: 5), clock: clock)
        let writer = Caller(user: user, deviceID: "device-0")
        for d in 0..<devices { try server.registerDevice(user: user, deviceID: "device-\(d)", container: container) }
        try server.withCore { (core) throws(CloudError) in
            _ = try core.engine.modifyRecordZones(caller: writer, database: database, saving: [zoneID], deleting: [])
            _ = try core.push.modifySubscriptions(
                user: user, database: database,
                saving: [.recordZone(RecordZoneSubscription(subscriptionID: "zone-changes", zoneID: zoneID))], deleting: [])
        }
        var delivered = 0
        let start = ContinuousClock.now
        for i in 0..<saves {
            let operation = RecordOperation(type: .forceReplace, record: Record(
                recordID: RecordID(recordName: "r\(i % 500)", zoneID: zoneID), recordType: "Item", fields: ["n": .int64(Int64(i))]))
            _ = try server.withEngine { (engine) throws(CloudError) in
                try engine.modifyRecords(caller: writer, database: database, zoneID: zoneID, operations: [operation])
            }
            clock.advance(by: 1)
            delivered += server.deliverDue().count
        }
        while let next = server.nextDeliveryTime {
            clock.advance(to: next)
            delivered += server.deliverDue().count
        }
        return (delivered, ContinuousClock.now.seconds(since: start))
    }
}
