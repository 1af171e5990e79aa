import SyncServerHost
import NIOCore
import Synchronization

/// What every connection of one server shares: the connection cap, the
/// header and body time limits, and each connection's ``ClientPresence``.
final class ConnectionLimits: Sendable {
    let maxConnections: Int
    let headerTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let headerSeconds: Double
    let bodySeconds: Double
    private let open = Atomic<Int>(0)
    private let presences = Mutex<[ObjectIdentifier: ClientPresence]>([:])

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
        presences.withLock { $0[ObjectIdentifier(channel)] = presence }
        return presence
    }

    func presence(for channel: any Channel) -> ClientPresence? {
        presences.withLock { $0[ObjectIdentifier(channel)] }
    }

    func unregister(_ channel: any Channel) {
        _ = presences.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
