import SyncServerHost
import NIOCore
import Synchronization

/// What every connection of one server shares: the connection cap, the
/// header and body time limits, and each open connection with its
/// ``ClientPresence``.
final class ConnectionLimits: Sendable {
    let maxConnections: Int
    let headerTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let headerSeconds: Double
    let bodySeconds: Double
    private let open = Atomic<Int>(0)
    /// Every open connection, with its presence.
    private let connections = Mutex<(open: [ObjectIdentifier: (channel: any Channel, presence: ClientPresence)], stopped: Bool)>(([:], false))

    init(options: ServeOptions) {
        maxConnections = options.maxConnections
        headerSeconds = options.headerTimeout
        bodySeconds = options.bodyTimeout
        headerTimeout = .nanoseconds(Int64(options.headerTimeout * 1e9))
        bodyTimeout = .nanoseconds(Int64(options.bodyTimeout * 1e9))
    }

    /// Counts a new connection; returns the count with it.
    func opened() -> Int { open.add(1, ordering: .relaxed).newValue }

    func closed() { open.subtract(1, ordering: .relaxed) }

    var openConnections: Int { open.load(ordering: .relaxed) }

    func register(_ channel: any Channel) -> ClientPresence {
        let presence = ClientPresence()
        connections.withLock { $0.open[ObjectIdentifier(channel)] = (channel, presence) }
        return presence
    }

    func presence(for channel: any Channel) -> ClientPresence? {
        connections.withLock { $0.open[ObjectIdentifier(channel)]?.presence }
    }

    func unregister(_ channel: any Channel) {
        _ = connections.withLock { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The server is serving (again): connections set up from now on are served.
    func start() {
        connections.withLock { $0.stopped = false }
    }

    /// The server has stopped: closes every connection still open (some may
    /// have been accepted that no one will serve), and ``isStopped`` tells
    /// one set up later to close itself.
    func stop() {
        let open = connections.withLock { state in
            state.stopped = true
            return state.open.values.map(\.channel)
        }
        for channel in open { channel.close(promise: nil) }
    }

    var isStopped: Bool { connections.withLock { $0.stopped } }
}
