import Foundation
import SyncCore
import SyncServer

/// A checkpoint as a store keeps it: the state through a position, in ``CheckpointFormat``.
package struct StoreCheckpoint: Sendable {
    package var through: Int64
    package var time: Milliseconds
    package var state: Data

    package init(through: Int64, time: Milliseconds, state: Data) {
        self.through = through
        self.time = time
        self.state = state
    }
}
