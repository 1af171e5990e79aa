import Foundation
import SyncCore
import SyncWire
import SyncServer

/// What the engine step did: whether it changed the state (then the journal
/// keeps the call), and how to word its answer.
package struct StepOutcome: Sendable {
    package var changedState: Bool
    /// Reads only the step's results, never the engine: call it after the lock is released.
    package var answer: @Sendable () -> APIAnswer
    /// The answer's JSON is encoded by ``answer``, after the lock (``APIDispatcher/wholeStep(_:)``).
    package var encodesAfterStep = false
    /// The body types a ``PreparedCall/Route/whole`` step decoded under the
    /// lock, not ahead (none, unless the ahead table misses a route).
    package var bodiesDecodedUnderLock: [String] = []

    package init(changedState: Bool, answer: @escaping @Sendable () -> APIAnswer) {
        self.changedState = changedState
        self.answer = answer
    }

    /// An answer already worded.
    package init(_ answer: APIAnswer) {
        changedState = answer.changedState
        self.answer = { answer }
    }
}
