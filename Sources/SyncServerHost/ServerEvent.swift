import Foundation
import SyncCore

/// One thing the server did, as its event feed (``ServerEventFeed``) keeps
/// it: a request answered, something the push layer did, or notifications a
/// device acknowledged. The feed keeps a request's fields and bodies as
/// bytes (``FeedByteRing``) and makes this value again when a watcher reads.
package struct ServerEvent: Sendable {
    package enum Kind: Sendable {
        case request(RequestEvent)
        /// Queued, coalesced, delivered, held while offline, dropped by a fault, and the rest of ``PushEvent``.
        case push(PushEvent)
        /// A device's long-poll acknowledged these notifications: they left its queue.
        case acknowledged(deviceID: String, notificationIDs: [String])
    }

    /// The event's number in its node's feed, from 1; set by the feed.
    package var sequence: UInt64 = 0
    /// The journal position the node had applied when the event happened
    /// (0 on a node whose order is its own step order): several nodes'
    /// feeds merge in commit order by it. Set by the feed.
    package var position: Int64 = 0
    /// Wall-clock milliseconds since 1970.
    package var time: Milliseconds
    package var kind: Kind

    package init(time: Milliseconds, kind: Kind) {
        self.time = time
        self.kind = kind
    }
}
