import Foundation
import Synchronization
import SyncCore

/// A ``ServerEngine`` and its ``PushEngine`` that can be shared: every call
/// runs under one lock, so calls are applied one at a time, in the order they arrive.
public final class SimulatedServer: Sendable {
    private let core: Mutex<ServerCore>
    public let clock: any SyncClock

    public init(
        configuration: ServerConfiguration = ServerConfiguration(), push: PushConfiguration = PushConfiguration(),
        clock: any SyncClock = VirtualClock()
    ) {
        self.clock = clock
        core = Mutex(ServerCore(
            engine: ServerEngine(configuration: configuration, clock: clock),
            push: PushEngine(configuration: push, seed: configuration.seed)))
    }

    /// Runs `body` with exclusive access to the engine.
    public func withEngine<T: Sendable, E: Error>(_ body: (ServerEngine) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout sending ServerCore) throws(E) -> sending T in try body(core.engine) }
    }

    /// Runs `body` with exclusive access to the push layer.
    public func withPush<T: Sendable, E: Error>(_ body: (PushEngine) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout sending ServerCore) throws(E) -> sending T in try body(core.push) }
    }

    /// Runs `body` with exclusive access to the engine and the push layer together.
    public func withCore<T: Sendable, E: Error>(_ body: (ServerCore) throws(E) -> T) throws(E) -> T {
        try core.withLock { (core: inout sending ServerCore) throws(E) -> sending T in try body(core) }
    }

    /// A connection for `user` (created if new) from `deviceID`.
    public func connect(
        user: String, deviceID: String? = nil, container: String = "iCloud.com.example.SyncScope",
        environment: ContainerEnvironment = .development
    ) throws(CloudError) -> InProcessCloudService {
        try withEngine { (engine) throws(CloudError) in _ = try engine.addUser(user) }
        return InProcessCloudService(server: self, caller: Caller(user: user, deviceID: deviceID), container: container, environment: environment)
    }

    // MARK: Push

    /// Registers `deviceID` for push notifications of `user` (created if new)
    /// in one container and environment (`tokens/create` + `tokens/register`).
    public func registerDevice(
        user: String, deviceID: String, container: String = "iCloud.com.example.SyncScope",
        environment: ContainerEnvironment = .development
    ) throws(CloudError) {
        let now = clock.now()
        try withCore { (core) throws(CloudError) in
            try core.engine.addUser(user)
            try core.push.registerDevice(deviceID, user: user, container: container, environment: environment, now: now)
        }
    }

    /// Takes a device offline or back online; first delivers what was due.
    @discardableResult
    public func setOnline(_ deviceID: String, _ online: Bool) throws(CloudError) -> [Delivery] {
        let now = clock.now()
        return try withPush { (push) throws(CloudError) in try push.setOnline(deviceID, online, now: now) }
    }

    /// When the next notification reaches a device; `nil`: none is on its way.
    public var nextDeliveryTime: Milliseconds? { withPush { $0.nextDeliveryTime } }

    /// Delivers every notification due by the clock's now.
    @discardableResult
    public func deliverDue() -> [Delivery] {
        let now = clock.now()
        return withPush { $0.deliverDue(now: now) }
    }

    /// What is on its way to a device, or held for it while it is offline.
    public func pendingNotifications(for deviceID: String) -> [PendingNotification] {
        let now = clock.now()
        return withPush { $0.pendingNotifications(for: deviceID, now: now) }
    }

    /// Takes the notifications delivered to a device since it last asked.
    public func receiveNotifications(for deviceID: String) throws(CloudError) -> [CloudNotification] {
        try withPush { (push) throws(CloudError) in try push.receiveNotifications(for: deviceID) }
    }

    /// Takes the push layer's events since the last call.
    public func drainPushEvents() -> [PushEvent] { withPush { $0.drainEvents() } }
}
