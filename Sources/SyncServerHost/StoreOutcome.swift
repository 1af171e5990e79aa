import Foundation
import SyncCore
import SyncServer

/// What ``ServerStore/perform(_:on:)`` came to.
package struct StoreOutcome: Sendable {
    package var outcome: StepOutcome
    /// The store could not keep the call (or the rows before it): the answer is a 503 saying so.
    package var failure: String?
    /// The row to wait for before answering (a store whose order is the step order).
    package var ticket: Int64?
    package var wake: [String] = []
    package var timer: Milliseconds?
}
