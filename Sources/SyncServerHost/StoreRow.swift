import Foundation
import SyncCore
import SyncServer

/// One row of the total order, decoded: what the host applies.
package struct StoreRow: Sendable {
    package var position: Int64
    /// The time its node asked for; applied at ``appliedTime(after:)``.
    package var time: Milliseconds
    package var call: APICall
    /// The node that appended it and its request (shared journals).
    package var origin: JournaledCall.Origin?

    package init(position: Int64, time: Milliseconds, call: APICall, origin: JournaledCall.Origin?) {
        self.position = position
        self.time = time
        self.call = call
        self.origin = origin
    }

    /// The later of the row's time and the time the row before it was applied at.
    package func appliedTime(after previous: Milliseconds) -> Milliseconds { max(time, previous) }
}
