import SyncCore
import SyncServer
import Testing

/// Random runs of commits, devices going offline and back, and time passing,
/// checked against an oracle that knows which subscriptions each commit should fire.
@Suite struct PushPropertyTests {
    static let devices: [(user: String, device: String)] = [("alice", "a1"), ("alice", "a2"), ("bob", "b1"), ("bob", "b2")]

    /// What the oracle expects one device to be told, per subscription.
    struct Expected {
        /// Commits that fired the subscription and concern this device.
        var commits: [String: Int] = [:]
        /// Notifications those commits stand for (a query commit stands for
        /// each matching record).
        var notifications = 0
        var lastChangeAt: Milliseconds?
    }

    struct Outcome {
        var expected: [String: Expected] = [:]
        var deliveries: [Delivery] = []
        var events: [String] = []
    }

    static func run(seed: UInt64) async throws -> Outcome {
        var random = SeededRandom(seed: seed)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let windows: [Milliseconds] = [0, 50, 200]
        let latencies: [Milliseconds] = [0, 30, 100]
        let f = PushFixture(
            seed: seed, push: PushConfiguration(coalescingWindow: windows[pick(3)], deliveryLatency: latencies[pick(3)]))
        var services: [String: InProcessCloudService] = [:]
        for (user, device) in devices { services[device] = try await f.device(user, device) }
        guard let a1 = services["a1"], let b1 = services["b1"] else { throw CloudError(.internalError, "no services") }
        let shared = zone("Shared")
        let own = zone("Own")
        let defaultZone = RecordZoneID.defaultZone(ownerName: "alice")
        try await a1.makeZones([shared, own])
        try await a1.shareZone(shared, with: ["bob"])
        let collapse = pick(2) == 0 ? NotificationInfo(collapseIDKey: "k") : nil
        try await a1.subscribe([
            .database(DatabaseSubscription(subscriptionID: "alice-db")),
            .recordZone(RecordZoneSubscription(subscriptionID: "alice-own", zoneID: own)),
            .query(QuerySubscription(
                subscriptionID: "alice-big", recordType: "Note", predicate: QueryPredicate([QueryFilter("n", .greaterThanOrEquals, 5)]),
                options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion], notificationInfo: collapse)),
        ])
        try await b1.subscribe([.database(DatabaseSubscription(subscriptionID: "bob-shared"))], in: .shared)

        var outcome = Outcome()
        var records: [RecordID: Int64] = [:]  // the oracle's copy of every record's n
        var online = Set(devices.map(\.device))
        func expect(user: String, except origin: String, subscription: String, count: Int) {
            for (u, device) in devices where u == user && device != origin {
                outcome.expected[device, default: Expected()].commits[subscription, default: 0] += 1
                outcome.expected[device, default: Expected()].notifications += count
                outcome.expected[device, default: Expected()].lastChangeAt = f.now
            }
        }

        for _ in 0..<40 {
            switch pick(10) {
            case 0..<5:  // a commit
                let (user, device) = devices[pick(devices.count)]
                let zoneID = user == "bob" ? shared : [shared, own, defaultZone][pick(3)]
                let names = Set((0..<(1 + pick(3))).map { _ in "r\(pick(5))" }).sorted()
                var operations: [RecordOperation] = []
                var matches = 0
                for name in names {
                    let id = RecordID(recordName: name, zoneID: zoneID)
                    let before = records[id]
                    if before != nil, pick(3) == 0 {
                        operations.append(.delete(id))
                        records[id] = nil
                        if let b = before, b >= 5 { matches += 1 }
                    } else {
                        let n = Int64(pick(10))
                        operations.append(.save(note(name, in: zoneID, ["n": .int64(n)]), policy: .allKeys))
                        records[id] = n
                        if let b = before { if b >= 5 && n >= 5 { matches += 1 } } else if n >= 5 { matches += 1 }
                    }
                }
                guard let service = services[device] else { continue }
                let results = try await service.modifyRecords(in: user == "bob" ? .shared : .private, zoneID: zoneID, operations: operations)
                for result in results { _ = try result.get() }
                if !zoneID.isDefaultZone {
                    expect(user: "alice", except: device, subscription: "alice-db", count: 1)
                }
                if zoneID == own { expect(user: "alice", except: device, subscription: "alice-own", count: 1) }
                if zoneID == shared { expect(user: "bob", except: device, subscription: "bob-shared", count: 1) }
                if matches > 0 { expect(user: "alice", except: device, subscription: "alice-big", count: matches) }
            case 5, 6:  // a device goes offline or comes back
                let device = devices[pick(devices.count)].device
                let goOnline = !online.contains(device)
                outcome.deliveries += try f.server.setOnline(device, goOnline)
                if goOnline { online.insert(device) } else { online.remove(device) }
            default:  // time passes
                outcome.deliveries += f.advance(by: Milliseconds(pick(300)))
            }
        }
        for (_, device) in devices where !online.contains(device) { outcome.deliveries += try f.server.setOnline(device, true) }
        outcome.deliveries += f.advance(by: 10_000)
        #expect(f.server.nextDeliveryTime == nil)
        outcome.events = f.events().map(\.description)
        return outcome
    }

    @Test(arguments: 1...120)
    func notificationsAreNeverMoreThanMatchingCommitsAndNoneIsLost(seed: UInt64) async throws {
        let outcome = try await Self.run(seed: seed)
        for (_, device) in Self.devices {
            let expected = outcome.expected[device] ?? Expected()
            let received = outcome.deliveries.filter { $0.deviceID == device }
            // At most one delivery per commit that fired a subscription for this device.
            let perSubscription = Dictionary(grouping: received, by: \.notification.subscriptionID).mapValues(\.count)
            for (subscription, count) in perSubscription.sorted(by: { $0.key < $1.key }) {
                #expect(count <= expected.commits[subscription] ?? 0, "seed \(seed) \(device) \(subscription)")
            }
            // Coalescing loses nothing: the counts add up to every notification.
            #expect(received.reduce(0) { $0 + $1.notification.coalescedCount } == expected.notifications, "seed \(seed) \(device)")
            // No lost wake-up: something reaches the device after its last relevant change.
            if let last = expected.lastChangeAt {
                #expect(received.contains { $0.deliveredAt >= last && $0.lastChangeAt >= last }, "seed \(seed) \(device)")
            } else {
                #expect(received.isEmpty, "seed \(seed) \(device)")
            }
        }
    }

    @Test(arguments: [3, 42, 99])
    func aSeedReplaysExactly(seed: UInt64) async throws {
        let first = try await Self.run(seed: seed)
        let second = try await Self.run(seed: seed)
        #expect(first.events == second.events)
        #expect(first.deliveries == second.deliveries)
    }
}
