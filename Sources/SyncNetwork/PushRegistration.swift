import Foundation
import Synchronization
import SyncCore
import SyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where this connection's device polls for notifications, once registered,
/// and what it has received.
final class PushRegistration: Sendable {
    private struct State {
        var url: URL?
        var lastNotificationID: String?
        var seen: Set<String> = []
        var seenOrder: [String] = []
    }
    private let state = Mutex(State())

    var url: URL? { state.withLock { $0.url } }

    func set(_ url: URL?) { state.withLock { $0.url = url } }

    /// The last notification received, which the next poll acknowledges.
    var lastNotificationID: String? { state.withLock { $0.lastNotificationID } }

    /// Notes a notification as received (the next poll acknowledges it);
    /// returns it unless it was received before (same notification ID).
    func received(_ polled: PolledNotification) -> PolledNotification? {
        state.withLock { state in
            let id = polled.notification.notificationID
            state.lastNotificationID = id
            guard state.seen.insert(id).inserted else { return nil }
            state.seenOrder.append(id)
            if state.seenOrder.count > 4096 {
                let old = state.seenOrder.prefix(2048)
                state.seen.subtract(old)
                state.seenOrder.removeFirst(2048)
            }
            return polled
        }
    }
}
