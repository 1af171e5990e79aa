import Foundation
import SyncCore
import SyncServer

/// A simulated world: one server, several devices, a virtual clock, push
/// delivery and an optional writer that keeps changing things.
///
/// Everything runs on the virtual clock and seeded random sources, so the
/// same setup, seed and actions give the same events, byte for byte. Not
/// thread-safe: drive it from one task. Device actions send at once (when the
/// device is online); time moves only through ``advance(by:)``.
public final class Simulation {
    public let setup: SimulationSetup
    public let clock: VirtualClock
    public let server: SimulatedServer
    public private(set) var devices: [SimulatedDevice] = []
    /// The most recent events, oldest first (at most `setup.eventLimit`).
    public private(set) var events: [SimulationEvent] = []
    /// How many events happened in all (events beyond the limit were dropped from `events`).
    public private(set) var eventCount = 0
    /// Called for every event as it happens.
    public var eventObserver: ((SimulationEvent) -> Void)?
    /// The demo writer, when one is attached.
    public var writer: DemoWriter?

    public init(setup: SimulationSetup, clock: VirtualClock = VirtualClock()) throws {
        self.setup = setup
        self.clock = clock
        server = SimulatedServer(configuration: setup.server, push: setup.push, clock: clock)
        for user in setup.users { _ = try server.connect(user: user, container: setup.container) }
        var seen = Set<String>()
        for deviceSetup in setup.devices {
            guard seen.insert(deviceSetup.name).inserted else {
                throw CloudError(.invalidArguments, "Two devices are named '\(deviceSetup.name)'; device names must be unique.")
            }
            let device = try SimulatedDevice(setup: deviceSetup, server: server, container: setup.container, clock: clock,
                wrapper: setup.connectionWrapper) {
                [unowned self] device, event in
                self.log(.sync(event), device: device.name)
            }
            devices.append(device)
        }
    }

    public func device(named name: String) -> SimulatedDevice? { devices.first { $0.name == name } }

    func device(withID deviceID: String) -> SimulatedDevice? { devices.first { $0.deviceID == deviceID } }

    func log(_ kind: SimulationEvent.Kind, device: String?) {
        eventCount += 1
        let event = SimulationEvent(number: eventCount, time: clock.now(), device: device, kind: kind)
        events.append(event)
        if events.count > setup.eventLimit { events.removeFirst(events.count - setup.eventLimit) }
        eventObserver?(event)
    }

    /// Records a narrative line (scenarios' `say:`, the inspector's notes).
    public func note(_ text: String, device: String? = nil) {
        log(.action(text), device: device)
    }

    // MARK: Time

    /// When something will happen next on its own (a push delivery, the writer).
    public var nextEventTime: Milliseconds? {
        [server.nextDeliveryTime, writer?.isRunning == true ? writer?.nextActionTime : nil].compactMap { $0 }.min()
    }

    /// Moves the clock forward by `milliseconds`, handling every push delivery
    /// and writer action at its time, and letting devices fetch on push.
    public func advance(by milliseconds: Milliseconds) async {
        let target = clock.now() + max(0, milliseconds)
        while let next = nextEventTime, next <= target {
            clock.advance(to: next)
            await processDue()
        }
        clock.advance(to: target)
        await processDue()
    }

    /// Advances until nothing is on its way (no pending delivery, no scheduled
    /// fetch), at most `limit` of virtual time. The writer does not run meanwhile.
    public func settle(limit: Milliseconds = 600_000) async {
        let deadline = clock.now() + limit
        let wasRunning = writer?.isRunning ?? false
        writer?.isRunning = false
        defer { writer?.isRunning = wasRunning }
        await runScheduledFetches()
        while let next = server.nextDeliveryTime, next <= deadline {
            clock.advance(to: next)
            await processDue()
        }
    }

    func processDue() async {
        if let writer, writer.isRunning, let time = writer.nextActionTime, time <= clock.now() {
            await writer.act(in: self)
        }
        for event in server.drainPushEvents() {
            if case .delivered = event.kind { continue }
            log(.push(event), device: nil)
        }
        for delivery in server.deliverDue() {
            deliver(delivery)
        }
        await runScheduledFetches()
    }

    private func deliver(_ delivery: Delivery) {
        guard let device = device(withID: delivery.deviceID) else { return }
        log(.delivered(delivery), device: device.name)
        // The device takes what reached its inbox (the webcourier poll).
        _ = try? server.receiveNotifications(for: device.deviceID)
        device.received(delivery.notification, delivery: delivery)
    }

    /// Runs the fetches that pushes (or coming online) scheduled, on online devices.
    public func runScheduledFetches() async {
        for device in devices where device.isOnline && device.engine.isFetchScheduled {
            await device.engine.runScheduledFetches()
        }
    }

    // MARK: Device actions

    /// Runs an action on a device, logs it, and sends the device's pending
    /// changes when it is online.
    @discardableResult
    public func perform(_ description: String, on device: SimulatedDevice, sending: Bool = true,
                        _ body: (SimulatedDevice) async throws -> Void) async -> ActionOutcome {
        log(.action(description), device: device.name)
        do {
            try await body(device)
            if sending && device.isOnline { try await device.engine.sendChanges() }
            await processDue()
            return .done(description)
        } catch let error as CloudError {
            device.noteFailure(error)
            log(.failed(action: description, error: error), device: device.name)
            return .failed(error)
        } catch {
            let cloud = CloudError(.internalError, String(describing: error))
            device.noteFailure(cloud)
            log(.failed(action: description, error: cloud), device: device.name)
            return .failed(cloud)
        }
    }

    @discardableResult
    public func createZone(_ zoneName: String, on device: SimulatedDevice) async -> ActionOutcome {
        await perform("create zone \(zoneName)", on: device) { device in
            try device.engine.saveZone(RecordZoneID(zoneName: zoneName, ownerName: device.user))
        }
    }

    @discardableResult
    public func deleteZone(_ zoneID: RecordZoneID, on device: SimulatedDevice) async -> ActionOutcome {
        await perform("delete zone \(zoneID.zoneName)", on: device) { device in try device.engine.deleteZone(zoneID) }
    }

    @discardableResult
    public func purgeZone(_ zoneID: RecordZoneID, on device: SimulatedDevice) async -> ActionOutcome {
        await perform("purge zone \(zoneID.zoneName) (the user deleted its data in Settings)", on: device, sending: false) { device in
            try await device.connection.purgeRecordZone(in: .private, zoneID)
        }
    }

    @discardableResult
    public func encryptedDataReset(on device: SimulatedDevice) async -> ActionOutcome {
        await perform("encrypted-data reset (every private zone goes)", on: device, sending: false) { device in
            try await device.connection.encryptedDataReset()
        }
    }

    @discardableResult
    public func shareZone(_ zoneName: String, with participants: [String], on device: SimulatedDevice, revoke: Bool = false) async -> ActionOutcome {
        let zoneID = RecordZoneID(zoneName: zoneName, ownerName: device.user)
        let verb = revoke ? "stop sharing" : "share"
        return await perform("\(verb) zone \(zoneName) with \(participants.joined(separator: ", "))", on: device, sending: false) { device in
            if revoke {
                try await device.connection.revokeShare(zoneID, from: participants)
            } else {
                try await device.connection.shareZone(zoneID, with: participants)
            }
        }
    }

    @discardableResult
    public func save(_ record: Record, on device: SimulatedDevice) async -> ActionOutcome {
        await perform("save \(record.recordID.recordName) in \(record.recordID.zoneID.zoneName)", on: device) { device in
            try device.engine.save(record)
        }
    }

    @discardableResult
    public func delete(_ recordID: RecordID, on device: SimulatedDevice) async -> ActionOutcome {
        await perform("delete \(recordID.recordName) in \(recordID.zoneID.zoneName)", on: device) { device in
            try device.engine.delete(recordID)
        }
    }

    /// Fetches now (all batches), whatever pushes said.
    @discardableResult
    public func fetch(on device: SimulatedDevice, resultsLimit: Int? = nil) async -> ActionOutcome {
        await perform("fetch changes" + (resultsLimit.map { " (resultsLimit \($0))" } ?? ""), on: device, sending: false) { device in
            device.engine.scheduleFetch()
            await device.engine.runScheduledFetches(resultsLimit: resultsLimit)
        }
    }

    /// Fetches one batch with `resultsLimit`, caching its token: call again to
    /// take the next (database changes first, then each waiting zone's batches).
    @discardableResult
    public func fetchOneBatch(on device: SimulatedDevice, resultsLimit: Int) async -> ActionOutcome {
        var more = false
        let outcome = await perform("fetch one batch (resultsLimit \(resultsLimit))", on: device, sending: false) { device in
            more = try await device.engine.fetchNextBatch(resultsLimit: resultsLimit)
        }
        guard case .done = outcome else { return outcome }
        return .done(more ? "fetched one batch; more to fetch" : "fetched one batch; nothing more to fetch")
    }

    /// Sends pending changes, then fetches everything.
    @discardableResult
    public func sync(_ device: SimulatedDevice) async -> ActionOutcome {
        await perform("sync (send, then fetch)", on: device) { device in
            try await device.engine.sendChanges()
            try await device.engine.fetchChanges()
        }
    }

    /// Takes a device offline or brings it back: back online, it receives what
    /// was held for it, sends its pending changes and fetches.
    @discardableResult
    public func setOnline(_ online: Bool, device: SimulatedDevice) async -> ActionOutcome {
        guard online != device.isOnline else { return .done(online ? "already online" : "already offline") }
        device.setOnlineFlag(online)
        log(.connectivity(online: online), device: device.name)
        do {
            let deliveries = try server.setOnline(device.deviceID, online)
            for delivery in deliveries { deliver(delivery) }
        } catch {
            return .failed(error)
        }
        guard online else { return .done("offline") }
        device.engine.cameOnline()
        return await perform("back online: send pending changes", on: device) { _ in }
    }

    /// Moves the retention horizon for a device's user: older tokens expire.
    @discardableResult
    public func compact(on device: SimulatedDevice, keepLast: Int = 0) async -> ActionOutcome {
        await perform("compact history (keep last \(keepLast))", on: device, sending: false) { device in
            try await device.connection.compactHistory(in: nil, zoneID: nil, keepLast: keepLast)
        }
    }

    /// Saves a subscription for a device's user.
    @discardableResult
    public func subscribe(_ subscription: Subscription, in scope: DatabaseScope, on device: SimulatedDevice) async -> ActionOutcome {
        await perform("subscribe \(subscription.subscriptionID) (\(scope.rawValue))", on: device, sending: false) { device in
            let results = try await device.connection.modifySubscriptions(in: scope, saving: [subscription], deleting: [])
            if case .failure(let error)? = results.first { throw error }
        }
    }
}
