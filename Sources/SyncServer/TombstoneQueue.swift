import Foundation
import SyncCore

/// A queue of (sequence, key) in increasing sequence order, consumed from the
/// front by compaction.
struct TombstoneQueue<Key> {
    private var items: [(sequence: Int64, key: Key)] = []
    private var head = 0

    mutating func append(_ sequence: Int64, _ key: Key) { items.append((sequence, key)) }

    /// Removes and returns the entries with sequence `<= horizon`.
    mutating func popThrough(_ horizon: Int64) -> [(sequence: Int64, key: Key)] {
        var popped: [(sequence: Int64, key: Key)] = []
        while head < items.count, items[head].sequence <= horizon {
            popped.append(items[head])
            head += 1
        }
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return popped
    }
}
