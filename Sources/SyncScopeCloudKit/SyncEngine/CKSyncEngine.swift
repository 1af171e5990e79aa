import Foundation
import Synchronization
import SyncCore

/// Syncs an app's records with one database, as CloudKit's `CKSyncEngine`.
///
/// The app adds pending changes to ``state``; the engine asks its delegate for batches of
/// them, sends them, and reports what happened as ``Event``s; it fetches what changed on the
/// server and hands it over the same way. With `automaticallySync` it fetches when it starts
/// and when a push arrives, and sends soon after changes are added. Each engine is a device of
/// the container's signed-in user; two engines on containers with one identifier are two
/// devices syncing through one server. See "CKSyncEngine on SyncScope" in this module's
/// documentation for what the twin does where Apple's documentation is silent.
public final class CKSyncEngine: Sendable {
    /// How an engine is set up, as CloudKit's `CKSyncEngine.Configuration`.
    public struct Configuration: Sendable {
        public var database: CKDatabase
        /// The last serialization a `stateUpdate` handed out; `nil` on first launch.
        public var stateSerialization: State.Serialization?
        /// Held weakly by the engine.
        public var delegate: any CKSyncEngineDelegate
        /// Sync on the engine's own schedule (the default); turn it off in tests that call
        /// ``fetchChanges(_:)`` and ``sendChanges(_:)`` themselves.
        public var automaticallySync = true
        /// The ID of the database subscription the engine saves for its pushes.
        public var subscriptionID: CKSubscription.ID?

        public init(database: CKDatabase, stateSerialization: State.Serialization?, delegate: any CKSyncEngineDelegate) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }
    }

    public let database: CKDatabase
    public let state: State
    let automaticallySync: Bool
    let subscriptionID: CKSubscription.ID
    private let delegateRef: Mutex<WeakDelegate>
    let operations = OperationChain()
    private let flags = Mutex(Flags())
    private let identity = UUID()

    private struct WeakDelegate {
        weak var value: (any CKSyncEngineDelegate)?
    }

    private struct Flags {
        var stateChanged = false
        var sendQueued = false
        var fetchQueued = false
        var scheduledRetries = 0
        var pushRegistered: String?
        var longPoll: Task<Void, Never>?
    }

    /// How many times one operation tries a call that failed with a retryable error.
    static let maximumAttempts = 6

    public init(_ configuration: Configuration) {
        database = configuration.database
        state = State(configuration.stateSerialization)
        automaticallySync = configuration.automaticallySync
        subscriptionID = configuration.subscriptionID ?? "com.apple.coredata.cloudkit.syncengine.\(configuration.database.databaseScope)"
        delegateRef = Mutex(WeakDelegate(value: configuration.delegate))
        state.observe { [weak self] added in self?.appChangedState(addedChanges: added) }
        database.container.observeAccount(identity) { [weak self] in self?.scheduleFetch() }
        if automaticallySync {
            scheduleFetch()
            if !state.pendingRecordZoneChanges.isEmpty || !state.pendingDatabaseChanges.isEmpty { scheduleSend() }
        }
    }

    deinit {
        let flags = flags.withLock { $0 }
        flags.longPoll?.cancel()
        if let device = flags.pushRegistered { database.container.backEnd.onPush(deviceID: device, nil) }
        database.container.observeAccount(identity, nil)
        operations.cancelAll()
    }

    var delegate: (any CKSyncEngineDelegate)? { delegateRef.withLock { $0.value } }
    var backEnd: SyncScopeBackEnd { database.container.backEnd }

    // MARK: Asking

    /// Fetches what changed on the server, and returns once the delegate handled every event.
    /// Throws when the fetch fails as a whole (after the engine's own retries).
    public func fetchChanges(_ options: FetchChangesOptions = FetchChangesOptions()) async throws {
        try await operations.run { try await self.fetch(options, reason: .manual) }
    }

    /// Sends the pending changes in `options`' scope, and returns once the delegate handled
    /// every event. Throws when the send fails as a whole (after the engine's own retries),
    /// and `partialFailure` (with `partialErrorsByItemID`) when some changes failed for
    /// reasons the engine does not retry; those were reported in `sentRecordZoneChanges` or
    /// `sentDatabaseChanges` first.
    public func sendChanges(_ options: SendChangesOptions = SendChangesOptions()) async throws {
        try await operations.run { try await self.send(options, reason: .manual) }
    }

    /// Cancels the operations running or waiting; they throw `operationCancelled`.
    public func cancelOperations() async {
        operations.cancelAll()
    }

    /// Returns once the engine has nothing running or scheduled (SyncScope's, for tests of
    /// automatic sync: CloudKit has no such call).
    public func waitUntilIdle() async {
        await operations.idle()
    }

    // MARK: Scheduling

    private func appChangedState(addedChanges: Bool) {
        flags.withLock { $0.stateChanged = true }
        if addedChanges {
            flags.withLock { $0.scheduledRetries = 0 }
            scheduleSend()
        }
    }

    func scheduleSend() {
        schedule(\.sendQueued) { engine in try await engine.send(SendChangesOptions(), reason: .scheduled) }
    }

    func scheduleFetch() {
        schedule(\.fetchQueued) { engine in try await engine.fetch(FetchChangesOptions(), reason: .scheduled) }
    }

    /// Queues one scheduled operation of a kind (one at a time: `queued` marks it until it starts).
    private func schedule(_ queued: WritableKeyPath<Flags, Bool> & Sendable, _ operation: @escaping @Sendable (CKSyncEngine) async throws -> Void) {
        guard automaticallySync, flags.withLock({ f in defer { f[keyPath: queued] = true }; return !f[keyPath: queued] }) else { return }
        Task { [operations] in
            _ = try? await operations.run { [weak self] in
                guard let self else { return }
                self.flags.withLock { $0[keyPath: queued] = false }
                try await operation(self)
            }
        }
    }

    /// After a send left retryable failures: another send after a back-off, a few times.
    func scheduleSendRetry(after milliseconds: Int64) {
        let allowed = flags.withLock { f -> Bool in
            f.scheduledRetries += 1
            return f.scheduledRetries <= Self.maximumAttempts
        }
        guard automaticallySync, allowed else { return }
        Task { [weak self, backEnd] in
            await backEnd.wait(milliseconds: milliseconds)
            self?.scheduleSend()
        }
    }

    private func pushArrived(_ link: DeviceLink) {
        Task { [weak self] in
            _ = try? await link.service.receivePushNotifications()
            self?.scheduleFetch()
        }
    }

    // MARK: Events

    func deliver(_ event: Event) async {
        guard let delegate else { return }
        await delegate.handleEvent(event, syncEngine: self)
    }

    /// Hands the delegate the state to persist.
    func emitStateUpdate() async {
        flags.withLock { $0.stateChanged = false }
        await deliver(.stateUpdate(Event.StateUpdate(stateSerialization: state.serialization)))
    }

    /// Hands out the state if the app changed it since the last `stateUpdate`.
    func emitStateUpdateIfChanged() async {
        if flags.withLock({ $0.stateChanged }) { await emitStateUpdate() }
    }

    // MARK: Every operation starts here

    /// Notices an account change (and tells the delegate), makes sure the engine is a device
    /// with a subscription, and returns its connection.
    func prepare() async throws(CKError) -> DeviceLink {
        let current = database.container.currentUser
        let previous = state.read(\.user)
        if current != previous {
            state.update { s in
                if previous != nil {
                    s = State.Stored()
                }
                s.user = current
            }
            let change: Event.AccountChange.ChangeType? =
                switch (previous, current) {
                case (nil, let now?): .signIn(currentUser: CKRecord.ID(recordName: now))
                case (let before?, nil): .signOut(previousUser: CKRecord.ID(recordName: before))
                case (let before?, let now?): .switchAccounts(previousUser: CKRecord.ID(recordName: before), currentUser: CKRecord.ID(recordName: now))
                case (nil, nil): nil
                }
            flags.withLock { $0.stateChanged = true }
            if let change { await deliver(.accountChange(Event.AccountChange(changeType: change))) }
        }
        guard let user = current, let identifier = database.container.containerIdentifier else {
            await emitStateUpdateIfChanged()
            throw CKContainer.notSignedIn
        }
        do {
            var deviceID = state.read(\.deviceID)
            if deviceID == nil {
                let made = try await backEnd.newDevice(user: user, container: identifier)
                state.update { $0.deviceID = made }
                deviceID = made
                flags.withLock { $0.stateChanged = true }
            }
            let link = DeviceLink(
                connection: try backEnd.connect(user: user, deviceID: deviceID, container: identifier), user: user, backEnd: backEnd)
            await subscribe(link)
            return link
        } catch {
            throw CKError(converting: error, user: user)
        }
    }

    /// Saves the engine's database subscription and registers the device for pushes, once
    /// (a failure is tried again by the next operation); with automatic sync, listens for them.
    private func subscribe(_ link: DeviceLink) async {
        if !state.read(\.subscribed) {
            let subscription = CKDatabaseSubscription(subscriptionID: subscriptionID)
            subscription.notificationInfo = CKSubscription.NotificationInfo()
            subscription.notificationInfo?.shouldSendContentAvailable = true
            do {
                _ = try await database.modifySubscriptions(saving: [subscription], deleting: [], via: link)
                try await link.service.registerForPushNotifications()
                state.update { $0.subscribed = true }
                flags.withLock { $0.stateChanged = true }
            } catch {
                return
            }
        }
        guard automaticallySync, let device = link.service.deviceID, flags.withLock({ $0.pushRegistered != device }) else { return }
        if backEnd.simulatedServer != nil {
            backEnd.onPush(deviceID: device) { [weak self] in self?.pushArrived(link) }
            flags.withLock { $0.pushRegistered = device }
        } else {
            let poll = Task { [weak self] in
                while !Task.isCancelled {
                    guard let notifications = try? await link.service.receivePushNotifications() else { return }
                    if !notifications.isEmpty { self?.scheduleFetch() }
                    if self == nil { return }
                }
            }
            flags.withLock {
                $0.longPoll?.cancel()
                $0.longPoll = poll
                $0.pushRegistered = device
            }
        }
    }

    // MARK: Retries

    /// Runs `body`, trying again after a back-off (or the server's `retryAfterSeconds`) while it
    /// fails with an error CloudKit's clients retry.
    func retrying<T>(_ body: () async throws(CKError) -> T) async throws(CKError) -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                guard Self.retries(error.code), attempt + 1 < Self.maximumAttempts else { throw error }
                try checkCancelled()
                await backEnd.wait(milliseconds: Self.backOff(error, attempt: attempt))
                attempt += 1
            }
        }
    }

    static func retries(_ code: CKError.Code) -> Bool {
        code.isRetryable && code != .notAuthenticated && code != .accountTemporarilyUnavailable
    }

    /// The server's `retryAfterSeconds`, else 1 s doubling per attempt, at most a minute.
    static func backOff(_ error: CKError?, attempt: Int) -> Int64 {
        if let seconds = error?.retryAfterSeconds { return Int64(seconds * 1000) }
        return min(60_000, 1000 << min(attempt, 6))
    }

    func checkCancelled() throws(CKError) {
        if Task.isCancelled { throw CKError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "The sync engine's operations were cancelled."]) }
    }
}
