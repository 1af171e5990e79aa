import Synchronization
import SyncCore
import SyncNetwork

/// Where a device's long-poll leaves what it heard, for the world to take on
/// its next tick: thread-safe, and awaitable (with a time limit) so a driver
/// can sleep until something arrives.
public final class PushMailbox: Sendable {
    public enum Item: Sendable, Hashable {
        /// One long-poll answer: one notification, and when it arrived.
        case notification(PolledNotification, receivedAt: Milliseconds)
        /// The long-poll failed (after it had worked, or at first); it keeps retrying.
        case pollFailed(CloudError)
        /// The long-poll works again after failing.
        case pollRecovered
    }

    private struct State {
        var items: [Item] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits in progress; a wake-up for one whose continuation is not yet
        /// stored is remembered in `woken`.
        var active: Set<Int> = []
        var woken: Set<Int> = []
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Leaves an item and wakes whoever waits.
    public func post(_ item: Item) {
        let waiters = state.withLock { state in
            state.items.append(item)
            let waiting = Array(state.waiters.values)
            state.woken.formUnion(state.active)
            state.waiters = [:]
            return waiting
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Takes everything left so far, oldest first.
    public func drain() -> [Item] {
        state.withLock { state in
            defer { state.items = [] }
            return state.items
        }
    }

    public var isEmpty: Bool { state.withLock { $0.items.isEmpty } }

    /// Returns as soon as something is in the mailbox (true), or after
    /// `timeout` (or when the task is cancelled) with nothing (false).
    public func wait(timeout: Duration) async -> Bool {
        let id: Int? = state.withLock { state in
            guard state.items.isEmpty else { return nil }
            state.nextWaiter += 1
            state.active.insert(state.nextWaiter)
            return state.nextWaiter
        }
        guard let id else { return true }
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.woken.contains(id) || !state.items.isEmpty { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake(id)
        }
        timer.cancel()
        return state.withLock { state in
            state.active.remove(id)
            state.woken.remove(id)
            return !state.items.isEmpty
        }
    }

    private func wake(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            if state.active.contains(id) { state.woken.insert(id) }
            return nil
        }
        waiter?.resume()
    }
}
