import SyncCore
import SyncServer
import Testing

/// A simulated server on a virtual clock, with helpers for push tests.
struct PushFixture {
    static let container = "iCloud.com.example.SyncScope"
    let clock: VirtualClock
    let server: SimulatedServer

    init(seed: UInt64 = 1, push: PushConfiguration = PushConfiguration(coalescingWindow: 100, deliveryLatency: 50)) {
        clock = VirtualClock()
        server = SimulatedServer(configuration: ServerConfiguration(seed: seed), push: push, clock: clock)
    }

    var now: Milliseconds { clock.now() }

    /// A connection from `device`, registered for push.
    func device(_ user: String, _ device: String) async throws -> InProcessCloudService {
        let service = try server.connect(user: user, deviceID: device)
        try await service.registerForPushNotifications()
        return service
    }

    /// Moves the clock and delivers what is due.
    @discardableResult
    func advance(by milliseconds: Milliseconds) -> [Delivery] {
        clock.advance(by: milliseconds)
        return server.deliverDue()
    }

    func events() -> [PushEvent] { server.drainPushEvents() }
}

func zone(_ name: String, _ owner: String = "alice") -> RecordZoneID {
    RecordZoneID(zoneName: name, ownerName: owner)
}

func note(_ name: String, in zone: RecordZoneID, type: String = "Note", _ fields: RecordFields = [:]) -> Record {
    Record(recordID: RecordID(recordName: name, zoneID: zone), recordType: type, fields: fields)
}

extension CloudService {
    /// Saves records (whatever the server has) and expects every save to succeed.
    func put(_ records: [Record], in scope: DatabaseScope = .private) async throws {
        guard let zoneID = records.first?.recordID.zoneID else { return }
        let results = try await modifyRecords(in: scope, zoneID: zoneID, operations: records.map { .save($0, policy: .allKeys) })
        for result in results { _ = try result.get() }
    }

    func remove(_ names: [String], in zoneID: RecordZoneID, scope: DatabaseScope = .private) async throws {
        let results = try await modifyRecords(
            in: scope, zoneID: zoneID, operations: names.map { .delete(RecordID(recordName: $0, zoneID: zoneID)) })
        for result in results { _ = try result.get() }
    }

    func makeZones(_ zones: [RecordZoneID]) async throws {
        for result in try await modifyRecordZones(in: .private, saving: zones, deleting: []) { _ = try result.get() }
    }

    /// Saves subscriptions and expects every save to succeed.
    func subscribe(_ subscriptions: [Subscription], in scope: DatabaseScope = .private) async throws {
        for result in try await modifySubscriptions(in: scope, saving: subscriptions, deleting: []) { _ = try result.get() }
    }

    /// Saves one subscription and returns the error it failed with, if any.
    func subscribeError(_ subscription: Subscription, in scope: DatabaseScope) async throws -> CloudError? {
        let results = try await modifySubscriptions(in: scope, saving: [subscription], deleting: [])
        if case .failure(let error) = results.first { return error }
        return nil
    }
}
