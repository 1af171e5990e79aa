import Foundation
import SyncCore

/// One row of a shared journal as stored: its position, the time its node asked for, the call's bytes (``JournaledCall``).
package struct SharedJournalRow: Sendable {
    package var position: Int64
    package var time: Int64
    package var call: Data

    package init(position: Int64, time: Int64, call: Data) {
        self.position = position
        self.time = time
        self.call = call
    }
}
