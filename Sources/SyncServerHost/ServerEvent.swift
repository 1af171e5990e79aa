import Foundation
import SyncCore

/// One thing the server did, as its event feed (``ServerEventFeed``) keeps
/// it: a request answered, something the push layer did, or notifications a
/// device acknowledged. A small value of references the request already
/// made: appending one to the feed copies no body and encodes nothing.
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

    /// The request and answer bytes the event holds on to.
    var bodyBytes: Int {
        if case .request(let request) = kind { return request.requestBody.count + request.answerBody.count }
        return 0
    }
}
