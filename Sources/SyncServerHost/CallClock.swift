import Synchronization
import SyncCore

/// The clock the engine reads: the time of the call being applied, which
/// is the wall clock (never going backwards) live, and the recorded time in replay.
package final class CallClock: SyncClock {
    private let current = Mutex<Milliseconds>(0)

    package func now() -> Milliseconds { current.withLock { $0 } }

    package func set(_ time: Milliseconds) { current.withLock { $0 = time } }

    /// Moves to the wall clock's now, never backwards; returns the time.
    package func tick() -> Milliseconds {
        let wall = SystemClock().now()
        return current.withLock { value in
            value = max(value, wall)
            return value
        }
    }
}
