import Foundation
import SyncCore
import SyncServer
import SyncWorlds

/// A simulated world: one server, several devices, a virtual clock, push
/// delivery and an optional writer that keeps changing things.
///
/// Everything runs on the virtual clock and seeded random sources, so the
/// same setup, seed and actions give the same events, byte for byte. Not
/// thread-safe: drive it from one task. Device actions send at once (when the
/// device is online); time moves only through ``advance(by:)``. The actions
/// and events are `SyncWorld`'s, shared with a device on a real server.
public final class Simulation: SyncWorld {
    public let setup: SimulationSetup
    /// The clock the whole world runs on (`SyncWorld.clock` is the same clock).
    public let virtualClock: VirtualClock
    public let server: SimulatedServer

    public init(setup: SimulationSetup, clock: VirtualClock = VirtualClock()) throws {
        self.setup = setup
        virtualClock = clock
        let server = SimulatedServer(configuration: setup.server, push: setup.push, clock: clock)
        self.server = server
        super.init(
            container: setup.container, clock: clock, isVirtualTime: true,
            serverObserver: InProcessServerObserver(server: server, container: setup.container), eventLimit: setup.eventLimit)
        for user in setup.users { _ = try server.connect(user: user, container: setup.container) }
        var seen = Set<String>()
        for deviceSetup in setup.devices {
            guard seen.insert(deviceSetup.name).inserted else {
                throw CloudError(.invalidArguments, "Two devices are named '\(deviceSetup.name)'; device names must be unique.")
            }
            let device = try SyncDevice(
                setup: deviceSetup, server: server, container: setup.container, clock: clock, wrapper: setup.connectionWrapper,
                seed: setup.seed) {
                [unowned self] device, event in
                self.logInjectedFaults()  // the fault first, then what the device made of it
                self.log(.sync(event), device: device.name)
            }
            devices.append(device)
        }
        if !setup.faults.isEmpty { server.addFaults(setup.faults) }
    }

    // MARK: Time

    /// When something will happen next on its own (a push delivery, the writer).
    public override var nextEventTime: Milliseconds? {
        [server.nextDeliveryTime, super.nextEventTime].compactMap { $0 }.min()
    }

    /// Moves the clock forward by `milliseconds`, handling every push delivery
    /// and writer action at its time, and letting devices fetch on push.
    public override func advance(by milliseconds: Milliseconds) async {
        let target = virtualClock.now() + max(0, milliseconds)
        while let next = nextEventTime, next <= target {
            virtualClock.advance(to: next)
            await processDue()
        }
        virtualClock.advance(to: target)
        await processDue()
    }

    /// Advances until nothing is on its way (no pending delivery, no scheduled
    /// fetch), at most `limit` of virtual time. The writer does not run meanwhile.
    public override func settle(limit: Milliseconds = 600_000) async {
        let deadline = virtualClock.now() + limit
        let wasRunning = writer?.isRunning ?? false
        writer?.isRunning = false
        defer { writer?.isRunning = wasRunning }
        await runScheduledFetches()
        while let next = server.nextDeliveryTime, next <= deadline {
            virtualClock.advance(to: next)
            await processDue()
        }
    }

    public override func processDue() async {
        logInjectedFaults()
        await runWriterIfDue()
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
        device.received(delivery.notification, deliveredAt: delivery.deliveredAt, latency: delivery.latency)
    }

    public override func connectivityChanged(_ device: SyncDevice, online: Bool) throws(CloudError) {
        for delivery in try server.setOnline(device.deviceID, online) { deliver(delivery) }
    }
}
