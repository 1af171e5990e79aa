import Foundation
import Synchronization
import SyncCore
import SyncClient
import SyncNetwork
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SyncSQLiteStore
import SyncWire
import SyncWorlds

/// One device connected to a real `syncscope serve` over HTTP, on the wall clock.
///
/// The device registers for push (`tokens/create` once, kept in its data
/// folder, then `tokens/register`), saves database subscriptions, and
/// long-polls its webcourier URL in a background task that leaves what it
/// hears in a ``PushMailbox``. Each ``advance(by:)`` (any amount: time here
/// is real, it cannot be moved or paused) takes the mail, hands the
/// notifications to the device's engine, and runs the fetches they
/// scheduled — from the tokens in the device's SQLite cache, so a device
/// started again resumes where it left off. ``waitForPushActivity(timeout:)``
/// sleeps until mail arrives. Device actions are `SyncWorld`'s, the same as
/// in a `Simulation`.
public final class RemoteWorld: SyncWorld {
    public let setup: RemoteDeviceSetup
    /// The one device.
    public let device: SyncDevice
    /// The device's folder, if it has one.
    public let dataDirectory: URL?
    /// Whether the cache held change tokens when the device started (it then fetches only what changed since).
    public let resumedFromCache: Bool
    public private(set) var pushStatus: PushStatus = .listening
    /// The long-poll's mailbox.
    public let mailbox = PushMailbox()
    private let pushConnection: HTTPCloudService
    private let pollSwitch = PollSwitch()
    private var isPolling = false

    /// Connects (checking the address and the credentials), sets up the
    /// device's identity, cache, push registration and subscriptions. Call
    /// ``start()`` next (or use ``connect(_:)``, which does both).
    public init(setup: RemoteDeviceSetup) async throws {
        self.setup = setup
        guard let scheme = setup.serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https", setup.serverURL.host != nil else {
            throw CloudError(
                .invalidArguments, "'\(setup.serverURL.absoluteString)' is not a server address; give one such as http://127.0.0.1:8400.")
        }
        let address = setup.serverURL.absoluteString
        // Every request says the device's name: the server's client directory names the device after it.
        var signedIn = HTTPCloudService(
            baseURL: setup.serverURL, webAuthToken: setup.webAuthToken, userRecordName: setup.user, container: setup.container,
            environment: setup.environment, session: setup.session)
        signedIn.userAgent = DeviceUserAgent.make(deviceName: setup.name)
        try await Self.checkAccess(signedIn, address: address, user: setup.user)

        // Identity and cache.
        var identity: RemoteDeviceIdentity?
        if let directory = setup.dataDirectory {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CloudError(.invalidArguments, "Cannot create the device's data folder \(directory.path): \(error.localizedDescription)")
            }
            identity = try RemoteDeviceIdentity.load(from: directory)
            if let identity {
                guard identity.user == setup.user, identity.container == setup.container, identity.environment == setup.environment.rawValue
                else {
                    throw CloudError(
                        .invalidArguments,
                        "\(directory.path) holds the cache of \(identity.user)'s device '\(identity.name)' (\(identity.container), \(identity.environment)); use another data folder for \(setup.user)'s '\(setup.name)'.")
                }
            }
            if setup.freshCache {
                for suffix in ["", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(RemoteDeviceIdentity.cacheFileName + suffix))
                }
            }
        }
        var deviceID = identity?.deviceID ?? ""
        if identity == nil { deviceID = try await signedIn.withNewDevice().deviceID ?? "" }
        guard !deviceID.isEmpty else { throw CloudError(.internalError, "The server at \(address) gave no device ID (tokens/create).") }
        /// The device's connection with its ID, in `session`, saying the device's name as `signedIn` does.
        func connection(deviceID: String, session: URLSession) -> HTTPCloudService {
            var connection = HTTPCloudService(
                baseURL: setup.serverURL, webAuthToken: setup.webAuthToken, userRecordName: setup.user, deviceID: deviceID,
                container: setup.container, environment: setup.environment, pushWaitSeconds: setup.pollTimeout, session: session)
            connection.userAgent = signedIn.userAgent
            return connection
        }
        // Push: register the device. A push channel belongs to the user who made
        // it; a server that does not know the kept one (it started again without
        // its data) makes a new one.
        var deviceConnection = connection(deviceID: deviceID, session: setup.session)
        do {
            try await deviceConnection.registerForPushNotifications()
        } catch let error as CloudError where identity != nil && (error.code == .unknownItem || error.code == .permissionFailure) {
            deviceID = try await signedIn.withNewDevice().deviceID ?? ""
            guard !deviceID.isEmpty else { throw CloudError(.internalError, "The server at \(address) gave no device ID (tokens/create).") }
            deviceConnection = connection(deviceID: deviceID, session: setup.session)
            try await deviceConnection.registerForPushNotifications()
        }
        if let directory = setup.dataDirectory {
            try RemoteDeviceIdentity(
                deviceID: deviceID, user: setup.user, name: setup.name, server: address, container: setup.container,
                environment: setup.environment.rawValue
            ).save(in: directory)
        }
        let store: any LocalStore
        if let directory = setup.dataDirectory {
            let path = directory.appendingPathComponent(RemoteDeviceIdentity.cacheFileName).path
            do {
                store = try SQLiteLocalStore(path: path)
            } catch {
                throw CloudError(.internalError, "Cannot open the device's cache \(path): \(error)")
            }
        } else {
            store = InMemoryLocalStore()
        }
        let cachedToken = try? store.databaseToken(for: .private)
        if let cachedToken {
            try await Self.checkCachedToken(cachedToken, with: signedIn, address: address, directory: setup.dataDirectory)
        }
        resumedFromCache = cachedToken != nil

        // Push: subscribe the device's user.
        if setup.subscribeToDatabases {
            for (scope, id) in [(DatabaseScope.private, RemoteDeviceSetup.privateSubscriptionID), (.shared, RemoteDeviceSetup.sharedSubscriptionID)] {
                let results = try await deviceConnection.modifySubscriptions(
                    in: scope, saving: [.database(DatabaseSubscription(subscriptionID: id))], deleting: [])
                if case .failure(let error)? = results.first { throw error }
            }
        }
        // The long-poll gets a session of its own (one connection, so each poll
        // reuses the one before's), unless the caller gave one. It is not
        // invalidated on close: tearing a URLSession down races its sockets'
        // dispatch sources in FoundationNetworking on Linux.
        pushConnection = setup.session === HTTPCloudService.sharedSession
            ? connection(deviceID: deviceID, session: HTTPCloudService.makeLongPollSession())
            : deviceConnection
        dataDirectory = setup.dataDirectory

        // The observer's reads are an inspector's, not the device's traffic.
        var inspecting = signedIn
        inspecting.isInspector = true
        let observer = HTTPServerObserver(connections: [inspecting])
        try await observer.beginWatching(user: setup.user, environment: setup.environment)

        let relay = EventRelay()
        let clock = SystemClock()
        // The server reports deletions without a type, as CloudKit does; the
        // device knows the type from its cache.
        let typedConnection = CacheTypedCloudService(base: deviceConnection, store: store)
        device = SyncDevice(
            name: setup.name, user: setup.user, deviceID: deviceID, environment: setup.environment,
            connection: setup.connectionWrapper.map { $0(typedConnection, setup.name) } ?? typedConnection,
            store: store, clock: clock, autoFetchOnPush: setup.autoFetchOnPush
        ) { device, event in
            relay.world?.log(.sync(event), device: device.name)
        }
        super.init(
            container: setup.container, clock: clock, isVirtualTime: false, serverObserver: observer, eventLimit: setup.eventLimit)
        relay.world = self
        devices = [device]
        let cache = setup.dataDirectory.map { "cache \($0.path)" } ?? "cache in memory"
        note(
            "connected to \(address) as \(setup.user), device ID \(deviceID) (\(cache), "
                + (resumedFromCache ? "resuming from its cached tokens)" : "no cached tokens: the first fetch brings everything)"),
            device: setup.name)
    }

    /// Connects and starts: see ``init(setup:)`` and ``start()``.
    public static func connect(_ setup: RemoteDeviceSetup) async throws -> RemoteWorld {
        let world = try await RemoteWorld(setup: setup)
        await world.start()
        return world
    }

    deinit {
        _ = pollSwitch.next()
    }

    /// Starts listening for pushes, then sends what the device has pending and
    /// fetches from its cached tokens (as an app does when it launches).
    public func start() async {
        startPolling()
        device.engine.cameOnline()
        await perform("start: send pending changes, then fetch from the cached tokens", on: device) { _ in }
    }

    /// Stops the long-poll and closes the cache. The world is not to be used afterwards.
    public func close() {
        stopPolling()
        pushStatus = .stopped
        try? (device.store as? SQLiteLocalStore)?.close()
    }

    // MARK: Time

    /// Takes what the long-poll heard, hands it to the device, and runs the
    /// fetches it scheduled (and the writer, if due). Time is real: it does not wait.
    public override func advance(by milliseconds: Milliseconds) async {
        await processDue()
    }

    /// Handles what has arrived and fetches what it scheduled. A live server
    /// may always send more: this does not wait for it.
    public override func settle(limit: Milliseconds = 600_000) async {
        await processDue()
    }

    /// Sleeps until the long-poll hears something (true) or `timeout` passes (false).
    public func waitForPushActivity(timeout: Duration) async -> Bool {
        await mailbox.wait(timeout: timeout)
    }

    public override func processDue() async {
        await runWriterIfDue()
        takeMail()
        await runScheduledFetches()
    }

    private func takeMail() {
        for item in mailbox.drain() {
            switch item {
            case .notification(let polled, let receivedAt):
                guard device.isOnline else { continue }
                log(.pushReceived(polled.notification), device: device.name)
                // The server says when it queued the notification: the latency is real.
                device.received(polled.notification, deliveredAt: receivedAt, latency: polled.latency(receivedAt: receivedAt))
            case .pollFailed(let error):
                guard pushStatus != .offline && pushStatus != .stopped else { continue }
                pushStatus = .failing(error)
                device.noteFailure(error)
                log(.failed(action: "push long-poll", error: error), device: device.name)
            case .pollRecovered:
                guard pushStatus != .offline && pushStatus != .stopped else { continue }
                pushStatus = .listening
                note("push long-poll works again", device: device.name)
                // Notifications may have been missed meanwhile.
                device.engine.cameOnline()
            }
        }
    }

    public override func connectivityChanged(_ device: SyncDevice, online: Bool) throws(CloudError) {
        if online {
            startPolling()
        } else {
            stopPolling()
            pushStatus = .offline
        }
    }

    /// Starts a long-poll loop in the background (``WebcourierListener``:
    /// one notification per answer, back-off while the server is away). It
    /// is never cancelled (a task cancelled inside URLSession can deadlock
    /// FoundationNetworking on Linux when the request fails at the same
    /// moment): stopping bumps the switch's generation, and the loop ends
    /// after its poll in flight, whose answer still goes to the mailbox
    /// (dropped there while the device is offline).
    private func startPolling() {
        guard !isPolling else { return }
        isPolling = true
        pushStatus = .listening
        let generation = pollSwitch.next()
        let (connection, mailbox, timeout, pollSwitch) = (pushConnection, mailbox, setup.pollTimeout, pollSwitch)
        Task {
            await WebcourierListener(longPoll: timeout).run(
                poll: { timeout in try await connection.pollWebcourier(timeout: timeout) },
                // A server that no longer knows the device (it started again without its data): register again.
                reregister: { try? await connection.registerForPushNotifications() },
                now: { SystemClock().now() },
                sleep: { milliseconds in try? await Task.sleep(for: .milliseconds(milliseconds)) },
                shouldContinue: { pollSwitch.isCurrent(generation) },
                handle: { event in
                    switch event {
                    case .notification(let polled, let receivedAt): mailbox.post(.notification(polled, receivedAt: receivedAt))
                    case .failed(let error): mailbox.post(.pollFailed(error))
                    case .recovered: mailbox.post(.pollRecovered)
                    }
                })
        }
    }

    private func stopPolling() {
        guard isPolling else { return }
        isPolling = false
        _ = pollSwitch.next()
    }

    // MARK: Checks

    /// One call that needs the server and the credentials, with errors a person understands.
    static func checkAccess(_ service: HTTPCloudService, address: String, user: String) async throws(CloudError) {
        let zones: [ZoneListing]
        do {
            zones = try await service.listRecordZones(in: .private)
        } catch let error as CloudError {
            switch error.code {
            case .networkFailure:
                throw CloudError(
                    .networkFailure, "Cannot reach the SyncScope server at \(address): \(error.reason) Is `syncscope serve` running there?")
            case .authenticationFailed, .notAuthenticated:
                throw CloudError(
                    error.code, "The server at \(address) does not accept this web auth token for '\(user)': \(error.reason)")
            default:
                throw CloudError(error.code, "The server at \(address) refused to list \(user)'s zones: \(error.reason)")
            }
        } catch {
            throw CloudError(.networkFailure, "Cannot talk to the SyncScope server at \(address): \(error)")
        }
        // The token decides who the server takes the caller for: it must be the user named.
        if let owner = zones.first(where: { $0.zoneID.isDefaultZone })?.zoneID.ownerName, owner != user {
            throw CloudError(
                .authenticationFailed, "This web auth token is \(owner)'s on the server at \(address), not \(user)'s: give \(user)'s token.")
        }
    }

    /// A cache whose tokens this server does not know (another server, or
    /// this one after it lost its data) cannot sync: say so rather than fail every fetch.
    static func checkCachedToken(
        _ token: ServerChangeToken, with service: HTTPCloudService, address: String, directory: URL?
    ) async throws(CloudError) {
        do {
            _ = try await service.fetchDatabaseChanges(in: .private, since: token, resultsLimit: 1)
        } catch let error as CloudError where error.code == .invalidArguments {
            throw CloudError(
                .invalidArguments,
                "The device's cache\(directory.map { " in \($0.path)" } ?? "") holds change tokens the server at \(address) does not accept (\(error.reason)) It was synced with another server, or with this one before it lost its data: start with a fresh cache, or use another data folder.")
        } catch let error as CloudError where error.code == .changeTokenExpired {
            return  // the engine starts over from no token on its own
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.networkFailure, "Cannot talk to the SyncScope server at \(address): \(error)")
        }
    }
}

/// Which long-poll loop is the current one: a loop runs while its generation is.
private final class PollSwitch: Sendable {
    private let generation = Mutex(0)

    /// Makes a new generation current (stopping the loop of the old one) and returns it.
    func next() -> Int { generation.withLock { $0 += 1; return $0 } }

    func isCurrent(_ value: Int) -> Bool { generation.withLock { $0 == value } }
}

/// Lets a device's event handler reach its world, which is made after the device.
private final class EventRelay {
    weak var world: SyncWorld?
}
