import Foundation
import Synchronization
import SyncCore

/// Where the devices' ``ObservedConnection``s leave what they saw, in the
/// order it happened, until the runner takes it (``drain()``).
///
/// The simulation's connection wrapper must be `Sendable`, so this is a
/// queue behind a lock rather than a callback into the (non-`Sendable`) runner.
final class ConnectionTap: Sendable {
    private struct State {
        var queue: [ObservedFetch] = []
        var isObserving = true
    }

    private let state = Mutex(State())

    /// While false, fetches are not kept (nobody would take them).
    var isObserving: Bool {
        get { state.withLock { $0.isObserving } }
        set { state.withLock { $0.isObserving = newValue; if !newValue { $0.queue = [] } } }
    }

    func append(_ fetch: ObservedFetch) {
        state.withLock { if $0.isObserving { $0.queue.append(fetch) } }
    }

    /// Returns fetches taken by ``drain()`` but not used yet, ahead of anything observed since.
    func putBack(_ fetches: [ObservedFetch]) {
        guard !fetches.isEmpty else { return }
        state.withLock { $0.queue.insert(contentsOf: fetches, at: 0) }
    }

    /// Everything observed since the last drain, oldest first.
    func drain() -> [ObservedFetch] {
        state.withLock { state in
            let taken = state.queue
            state.queue = []
            return taken
        }
    }
}
