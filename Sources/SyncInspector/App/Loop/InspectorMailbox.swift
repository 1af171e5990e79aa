import Synchronization

/// Messages on their way to the update step, from any thread (the world's
/// observer, an effect that ended), in the order they were posted; each post
/// wakes the loop through a ``WakePipe``.
public final class InspectorMailbox: Sendable {
    private let messages = Mutex<[InspectorMsg]>([])
    /// What the loop waits on beside the terminal.
    public let wake = WakePipe()

    public init() {}

    /// Posts `message` and wakes the loop (a world's every event comes this
    /// way, thousands a second: it is appended as it is, with no array of one).
    public func post(_ message: InspectorMsg) {
        append { $0.append(message) }
    }

    /// Posts each of `batch`, in order, and wakes the loop.
    public func post(_ batch: [InspectorMsg]) {
        guard !batch.isEmpty else { return }
        append { $0 += batch }
    }

    /// Adds to the messages waiting. Only the first message of those waiting
    /// writes to the pipe: the loop takes them all at once (a world making
    /// 1,000 changes a second costs one write per wake-up, not a thousand).
    private func append(_ add: (inout [InspectorMsg]) -> Void) {
        let wasEmpty = messages.withLock { messages in
            defer { add(&messages) }
            return messages.isEmpty
        }
        if wasEmpty { wake.wake() }
    }

    /// Takes every message posted so far, oldest first. The pipe is
    /// emptied first: a message posted after this wakes the loop again.
    func takeAll() -> [InspectorMsg] {
        // Nothing waits: nothing to take (a byte left in the pipe only wakes the loop once more).
        guard !isEmpty else { return [] }
        wake.drain()
        return messages.withLock { messages in
            defer { messages = [] }
            return messages
        }
    }

    var isEmpty: Bool { messages.withLock { $0.isEmpty } }
}
