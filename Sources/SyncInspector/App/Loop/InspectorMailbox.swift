import Synchronization

/// Messages on their way to the update step, from any thread (the world's
/// observer, an effect that ended), in the order they were posted; each post
/// wakes the loop through a ``WakePipe``.
public final class InspectorMailbox: Sendable {
    private let messages = Mutex<[InspectorMsg]>([])
    /// What the loop waits on beside the terminal.
    public let wake = WakePipe()

    public init() {}

    /// Posts `message` and wakes the loop.
    public func post(_ message: InspectorMsg) {
        messages.withLock { $0.append(message) }
        wake.wake()
    }

    /// Posts each of `batch`, in order, and wakes the loop once.
    public func post(_ batch: [InspectorMsg]) {
        guard !batch.isEmpty else { return }
        messages.withLock { $0 += batch }
        wake.wake()
    }

    /// Takes every message posted so far, oldest first. The pipe is
    /// emptied first: a message posted after this wakes the loop again.
    func takeAll() -> [InspectorMsg] {
        wake.drain()
        return messages.withLock { messages in
            defer { messages = [] }
            return messages
        }
    }

    var isEmpty: Bool { messages.withLock { $0.isEmpty } }
}
