import Foundation
import SyncCore

/// Devices syncing with a server, their events, and the actions a person, a
/// scenario or the writer can take on them — whatever the server is.
///
/// Two kinds of world share this interface, so the inspector, the writer and
/// the scenario runner drive either the same way:
/// - `Simulation` (in SyncSimulation): an in-process server and any number of devices on a
///   virtual clock (``isVirtualTime``): time moves only through
///   ``advance(by:)``, and the same seed gives the same events.
/// - `RemoteWorld` (in SyncRemoteWorld): one device talking to a `syncscope serve` over HTTP, on
///   the wall clock: time is not ours to move, so ``advance(by:)`` handles what
///   has arrived (push notifications from the long-poll) and what is due, and
///   returns without waiting.
///
/// What the server holds is read through ``serverObserver``. Not thread-safe:
/// drive a world from one task.
open class SyncWorld {
    /// The container every device of this world uses.
    public let container: String
    /// "Now" for this world: a `VirtualClock` in a `Simulation`, the wall clock in a `RemoteWorld`.
    public let clock: any SyncClock
    /// Whether time is virtual (it moves only through ``advance(by:)``, and
    /// can be paused) or real (a live server: show "live", not a pausable clock).
    public let isVirtualTime: Bool
    /// What the server holds, as the inspector shows it.
    public let serverObserver: any ServerObserver
    public package(set) var devices: [SyncDevice] = []
    /// The most recent events, oldest first (at most `eventLimit`; a copy:
    /// to look at a few of them, ``recentEvents(_:)`` copies nothing).
    public var events: [WorldEvent] { Array(eventStorage[firstKeptEvent...]) }
    /// The kept events start at `firstKeptEvent`; the ones before it are
    /// dropped all at once when there are `eventLimit` of them, so logging an
    /// event costs the same however many are kept (not a shift of them all).
    private var eventStorage: [WorldEvent] = []
    private var firstKeptEvent = 0
    /// How many events happened in all (events beyond the limit were dropped from `events`).
    public private(set) var eventCount = 0
    /// How many events the world keeps for display.
    public let eventLimit: Int
    /// Called for every event as it happens.
    public var eventObserver: ((WorldEvent) -> Void)?
    /// The demo writer, when one is attached.
    public var writer: DemoWriter?

    package init(container: String, clock: any SyncClock, isVirtualTime: Bool, serverObserver: any ServerObserver, eventLimit: Int) {
        self.container = container
        self.clock = clock
        self.isVirtualTime = isVirtualTime
        self.serverObserver = serverObserver
        self.eventLimit = max(1, eventLimit)
    }

    public func device(named name: String) -> SyncDevice? { devices.first { $0.name == name } }

    package func device(withID deviceID: String) -> SyncDevice? { devices.first { $0.deviceID == deviceID } }

    package func log(_ kind: WorldEvent.Kind, device: String?) {
        eventCount += 1
        let event = WorldEvent(number: eventCount, time: clock.now(), device: device, kind: kind)
        eventStorage.append(event)
        if eventStorage.count - firstKeptEvent > eventLimit { firstKeptEvent += 1 }
        if firstKeptEvent >= eventLimit {
            eventStorage.removeFirst(firstKeptEvent)
            firstKeptEvent = 0
        }
        eventObserver?(event)
    }

    /// The last `count` of ``events`` (fewer when fewer are kept), oldest first, without copying them.
    public func recentEvents(_ count: Int) -> ArraySlice<WorldEvent> {
        eventStorage[max(firstKeptEvent, eventStorage.count - max(0, count))...]
    }

    /// Records a narrative line (scenarios' `say:`, the inspector's notes).
    public func note(_ text: String, device: String? = nil) {
        log(.action(text), device: device)
    }

    // MARK: Time (each kind of world fills these in)

    /// When something will happen next on its own (a push delivery, the
    /// writer), as far as this world can know.
    open var nextEventTime: Milliseconds? {
        writer?.isRunning == true ? writer?.nextActionTime : nil
    }

    /// Lets `milliseconds` pass, handling what happens meanwhile (see the
    /// kinds of world for what that means).
    open func advance(by milliseconds: Milliseconds) async {
        await processDue()
    }

    /// Handles what is on its way until nothing is, at most `limit` of virtual time.
    open func settle(limit: Milliseconds = 600_000) async {
        await processDue()
    }

    /// Runs what is due now: the writer, push deliveries, scheduled fetches.
    open func processDue() async {
        await runWriterIfDue()
        await runScheduledFetches()
    }

    package func runWriterIfDue() async {
        if let writer, writer.isRunning, let time = writer.nextActionTime, time <= clock.now() {
            await writer.act(in: self)
        }
    }

    /// Runs the fetches that pushes (or coming online) scheduled, on online devices.
    public func runScheduledFetches() async {
        for device in devices where device.isOnline && device.engine.isFetchScheduled {
            await device.engine.runScheduledFetches()
        }
    }

    /// Takes a device's connection to the push service offline or back
    /// online; the device's flag is already set. Each kind of world fills this in.
    open func connectivityChanged(_ device: SyncDevice, online: Bool) throws(CloudError) {}

    // MARK: Device actions

    /// Runs an action on a device, logs it, and sends the device's pending
    /// changes when it is online.
    @discardableResult
    public func perform(_ description: String, on device: SyncDevice, sending: Bool = true,
                        _ body: (SyncDevice) async throws -> Void) async -> ActionOutcome {
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
    public func createZone(_ zoneName: String, on device: SyncDevice) async -> ActionOutcome {
        await perform("create zone \(zoneName)", on: device) { device in
            try device.engine.saveZone(RecordZoneID(zoneName: zoneName, ownerName: device.user))
        }
    }

    @discardableResult
    public func deleteZone(_ zoneID: RecordZoneID, on device: SyncDevice) async -> ActionOutcome {
        await perform("delete zone \(zoneID.zoneName)", on: device) { device in try device.engine.deleteZone(zoneID) }
    }

    @discardableResult
    public func purgeZone(_ zoneID: RecordZoneID, on device: SyncDevice) async -> ActionOutcome {
        await perform("purge zone \(zoneID.zoneName) (the user deleted its data in Settings)", on: device, sending: false) { device in
            try await device.connection.purgeRecordZone(in: .private, zoneID)
        }
    }

    @discardableResult
    public func encryptedDataReset(on device: SyncDevice) async -> ActionOutcome {
        await perform("encrypted-data reset (every private zone goes)", on: device, sending: false) { device in
            try await device.connection.encryptedDataReset()
        }
    }

    @discardableResult
    public func shareZone(_ zoneName: String, with participants: [String], on device: SyncDevice, revoke: Bool = false) async -> ActionOutcome {
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
    public func save(_ record: Record, on device: SyncDevice) async -> ActionOutcome {
        await perform("save \(record.recordID.recordName) in \(record.recordID.zoneID.zoneName)", on: device) { device in
            try device.engine.save(record)
        }
    }

    @discardableResult
    public func delete(_ recordID: RecordID, on device: SyncDevice) async -> ActionOutcome {
        await perform("delete \(recordID.recordName) in \(recordID.zoneID.zoneName)", on: device) { device in
            try device.engine.delete(recordID)
        }
    }

    /// Fetches now (all batches), whatever pushes said.
    @discardableResult
    public func fetch(on device: SyncDevice, resultsLimit: Int? = nil) async -> ActionOutcome {
        await perform("fetch changes" + (resultsLimit.map { " (resultsLimit \($0))" } ?? ""), on: device, sending: false) { device in
            device.engine.scheduleFetch()
            await device.engine.runScheduledFetches(resultsLimit: resultsLimit)
        }
    }

    /// Fetches one batch with `resultsLimit`, caching its token: call again to
    /// take the next (database changes first, then each waiting zone's batches).
    @discardableResult
    public func fetchOneBatch(on device: SyncDevice, resultsLimit: Int) async -> ActionOutcome {
        var more = false
        let outcome = await perform("fetch one batch (resultsLimit \(resultsLimit))", on: device, sending: false) { device in
            more = try await device.engine.fetchNextBatch(resultsLimit: resultsLimit)
        }
        guard case .done = outcome else { return outcome }
        return .done(more ? "fetched one batch; more to fetch" : "fetched one batch; nothing more to fetch")
    }

    /// Sends pending changes, then fetches everything.
    @discardableResult
    public func sync(_ device: SyncDevice) async -> ActionOutcome {
        await perform("sync (send, then fetch)", on: device) { device in
            try await device.engine.sendChanges()
            try await device.engine.fetchChanges()
        }
    }

    /// Takes a device offline or brings it back: back online, it receives what
    /// was held for it, sends its pending changes and fetches.
    @discardableResult
    public func setOnline(_ online: Bool, device: SyncDevice) async -> ActionOutcome {
        guard online != device.isOnline else { return .done(online ? "already online" : "already offline") }
        device.setOnlineFlag(online)
        log(.connectivity(online: online), device: device.name)
        do {
            try connectivityChanged(device, online: online)
        } catch {
            return .failed(error)
        }
        guard online else { return .done("offline") }
        device.engine.cameOnline()
        return await perform("back online: send pending changes", on: device) { _ in }
    }

    /// Moves the retention horizon for a device's user: older tokens expire.
    @discardableResult
    public func compact(on device: SyncDevice, keepLast: Int = 0) async -> ActionOutcome {
        await perform("compact history (keep last \(keepLast))", on: device, sending: false) { device in
            try await device.connection.compactHistory(in: nil, zoneID: nil, keepLast: keepLast)
        }
    }

    /// Saves a subscription for a device's user.
    @discardableResult
    public func subscribe(_ subscription: Subscription, in scope: DatabaseScope, on device: SyncDevice) async -> ActionOutcome {
        await perform("subscribe \(subscription.subscriptionID) (\(scope.rawValue))", on: device, sending: false) { device in
            let results = try await device.connection.modifySubscriptions(in: scope, saving: [subscription], deleting: [])
            if case .failure(let error)? = results.first { throw error }
        }
    }
}
