import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServer

/// Where a container's databases live (SyncScope's own type; CloudKit has no such thing).
///
/// By default every ``CKContainer`` with the same identifier in a process shares one
/// in-process SyncScope server: two sync engines in one test are two devices of one user,
/// syncing through it. The server is deterministic on its seed (`SYNCSCOPE_SEED`, default 1),
/// runs on a virtual clock, and takes a fault plan (``addFaults(_:)``).
///
/// With `SYNCSCOPE_SERVER=http://host:port` (and `SYNCSCOPE_USER`, `SYNCSCOPE_TOKEN`: the
/// user and the web auth token `syncscope serve` prints) containers talk to that server
/// instead, so the same code can be watched live in the inspector.
public final class SyncScopeBackEnd: Sendable {
    enum Kind: Sendable {
        case inProcess(SimulatedServer)
        case http(baseURL: URL, user: String, webAuthToken: String)
    }

    let kind: Kind
    /// The user a new container is signed in as.
    public let defaultUser: String
    private let counters = Mutex<Int>(0)
    private let pushHandlers = Mutex<[String: @Sendable () -> Void]>([:])

    /// A new in-process server, deterministic on `seed`.
    public static func inProcess(seed: UInt64 = 1, user: String = "_syncscope_user", retention: Int? = nil) -> SyncScopeBackEnd {
        SyncScopeBackEnd(
            kind: .inProcess(SimulatedServer(configuration: ServerConfiguration(retention: retention, seed: seed))), defaultUser: user)
    }

    /// A running `syncscope serve`, as `user` with that user's web auth token.
    public static func http(baseURL: URL, user: String, webAuthToken: String) -> SyncScopeBackEnd {
        SyncScopeBackEnd(kind: .http(baseURL: baseURL, user: user, webAuthToken: webAuthToken), defaultUser: user)
    }

    init(kind: Kind, defaultUser: String) {
        self.kind = kind
        self.defaultUser = defaultUser
    }

    // MARK: One back end per container identifier

    private static let shared = Mutex<[String: SyncScopeBackEnd]>([:])

    /// The back end of every container with this identifier in the process: the one
    /// ``install(_:forContainer:)`` set, else one made from the environment.
    public static func forContainer(_ identifier: String) -> SyncScopeBackEnd {
        shared.withLock { all in
            if let backEnd = all[identifier] { return backEnd }
            let backEnd = fromEnvironment()
            all[identifier] = backEnd
            return backEnd
        }
    }

    /// Makes every container with this identifier use `backEnd` from now on (a test's own server).
    public static func install(_ backEnd: SyncScopeBackEnd, forContainer identifier: String) {
        shared.withLock { $0[identifier] = backEnd }
    }

    /// The back end the environment asks for: `SYNCSCOPE_SERVER` (+ `SYNCSCOPE_USER`,
    /// `SYNCSCOPE_TOKEN`), else an in-process server seeded by `SYNCSCOPE_SEED`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> SyncScopeBackEnd {
        if let server = environment["SYNCSCOPE_SERVER"], let url = URL(string: server), let user = environment["SYNCSCOPE_USER"] {
            return .http(baseURL: url, user: user, webAuthToken: environment["SYNCSCOPE_TOKEN"] ?? "")
        }
        return .inProcess(seed: environment["SYNCSCOPE_SEED"].flatMap(UInt64.init) ?? 1)
    }

    // MARK: The in-process server

    /// The in-process server; `nil` for a remote one.
    public var simulatedServer: SimulatedServer? {
        if case .inProcess(let server) = kind { server } else { nil }
    }

    /// Adds fault rules (in-process only; a remote server takes them with `syncscope faults`).
    @discardableResult
    public func addFaults(_ plan: FaultPlan) -> [Int] { simulatedServer?.addFaults(plan) ?? [] }

    /// Removes every fault rule.
    public func clearFaults() { simulatedServer?.clearFaults() }

    // MARK: Connections

    /// A new device of `user` in `container`: on the in-process server a name unique on it; on
    /// a remote server the device ID it makes (`tokens/create`).
    func newDevice(user: String, container: String) async throws -> String {
        switch kind {
        case .inProcess:
            let n = counters.withLock { (n: inout Int) -> Int in
                n += 1
                return n
            }
            return "device-\(n)"
        case .http(let baseURL, _, let token):
            let service = HTTPCloudService(baseURL: baseURL, webAuthToken: token, userRecordName: user, container: container)
            guard let deviceID = try await service.withNewDevice().deviceID else { throw CKError(.internalError) }
            return deviceID
        }
    }

    /// A connection for `user` from `deviceID` (none: no device in particular) to one container.
    func connect(user: String, deviceID: String?, container: String) throws -> BackEndConnection {
        switch kind {
        case .inProcess(let server):
            let service = try server.connect(user: user, deviceID: deviceID, container: container, environment: .development)
            return BackEndConnection(service: service) { scope, request in
                let database = DatabaseID(container: container, environment: .development, scope: scope)
                return try server.withEngine { (engine) throws(CloudError) in
                    try engine.queryRecords(caller: service.caller, database: database, request)
                }
            }
        case .http(let baseURL, let remoteUser, let token):
            guard user == remoteUser else {
                throw CKError(.notAuthenticated, userInfo: [NSLocalizedDescriptionKey: "This server's user is \(remoteUser); switching accounts needs the in-process server."])
            }
            let service = HTTPCloudService(
                baseURL: baseURL, webAuthToken: token, userRecordName: user, deviceID: deviceID, container: container, pushWaitSeconds: 20)
            return BackEndConnection(service: service) { scope, request in try await service.queryRecords(in: scope, request) }
        }
    }

    /// Waits `milliseconds`: on the in-process server's virtual clock the time passes at once.
    func wait(milliseconds: Int64) async {
        guard milliseconds > 0 else { return }
        if let server = simulatedServer {
            await server.wait(milliseconds)
        } else {
            try? await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
        }
    }

    /// A call's round trip: on the in-process server's virtual clock, one millisecond passes, so
    /// the server's modification dates of a record's successive changes differ, as Apple's do.
    func tick() {
        (simulatedServer?.clock as? VirtualClock)?.advance(by: 1)
    }

    /// The back end's time, in milliseconds since 1970.
    var now: Int64 { simulatedServer?.clock.now() ?? Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: Push

    /// Calls `handler` whenever a push reaches `deviceID` (in-process; a remote device long-polls).
    func onPush(deviceID: String, _ handler: (@Sendable () -> Void)?) {
        pushHandlers.withLock { $0[deviceID] = handler }
    }

    /// After a change: lets the pushes it caused arrive (on the virtual clock, their latency
    /// passes at once) and tells each device that has a handler.
    func deliverPushes() {
        guard let server = simulatedServer else { return }
        var devices: [String] = []
        while let due = server.nextDeliveryTime {
            if let clock = server.clock as? VirtualClock, due > clock.now() { clock.advance(to: due) }
            let delivered = server.deliverDue()
            if delivered.isEmpty { break }
            for delivery in delivered where !devices.contains(delivery.deviceID) { devices.append(delivery.deviceID) }
        }
        let handlers = pushHandlers.withLock { all in devices.compactMap { all[$0] } }
        for handler in handlers { handler() }
    }
}

/// One user's connection from one device: the CloudService and its query call.
struct BackEndConnection: Sendable {
    let service: any CloudService
    let query: @Sendable (DatabaseScope, QueryRequest) async throws -> QueryResult
}
