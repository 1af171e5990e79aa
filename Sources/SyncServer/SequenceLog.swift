/// A change log in which each key stands once, at its latest change.
///
/// Sequence numbers are dense: slot `i` holds sequence `firstSequence + i`.
/// When a key changes again, its old slot dies and a new slot is appended, so
/// the log stays in order of last change. Dead slots are skipped with a
/// union-find "next live slot" structure (path halving), so walking `k` live
/// entries from any sequence costs O(k · α(n)) — it does not grow with the
/// history, however many superseded entries lie in between.
struct SequenceLog<Key> {
    /// The sequence number of slot 0. Sequence numbers start at 1, so 0 means
    /// "before everything".
    private(set) var firstSequence: Int64 = 1
    private var keys: [Key?] = []
    /// `next[i] == i` for a live slot; otherwise a pointer towards a later slot.
    private var next: [Int32] = []
    private(set) var liveCount = 0

    /// The sequence number the next appended change gets.
    var nextSequence: Int64 { firstSequence + Int64(keys.count) }
    /// The sequence of the latest change, or 0 when nothing has happened yet.
    var lastSequence: Int64 { nextSequence - 1 }

    init() {}

    /// A log holding exactly `live` (sorted by sequence, each in
    /// `1...lastSequence`), whose next change gets `lastSequence + 1`. Slots
    /// before the first live entry are not kept.
    init(restoring live: [(sequence: Int64, key: Key)], lastSequence: Int64) {
        let first = max(1, live.first?.sequence ?? (lastSequence + 1))
        firstSequence = first
        let count = Int(max(0, lastSequence - first + 1))
        keys = Array(repeating: nil, count: count)
        next = (0..<count).map { Int32($0 + 1) }
        for (sequence, key) in live {
            let i = Int(sequence - first)
            keys[i] = key
            next[i] = Int32(i)
        }
        liveCount = live.count
    }

    mutating func reserveCapacity(_ n: Int) {
        keys.reserveCapacity(n)
        next.reserveCapacity(n)
    }

    /// Appends a change for `key` and returns its sequence number.
    @discardableResult
    mutating func append(_ key: Key) -> Int64 {
        let sequence = nextSequence
        next.append(Int32(keys.count))
        keys.append(key)
        liveCount += 1
        return sequence
    }

    /// Marks the entry at `sequence` as superseded (or compacted away).
    mutating func remove(_ sequence: Int64) {
        let i = Int(sequence - firstSequence)
        guard i >= 0, i < keys.count, keys[i] != nil else { return }
        keys[i] = nil
        next[i] = Int32(i + 1)
        liveCount -= 1
    }

    /// Walks the live entries from `sequence` on, oldest first, for as long
    /// as `visit` answers `true`; answers the sequence of the first live
    /// entry `visit` did not take, or `nil` when the walk reached the end.
    ///
    /// One call walks a whole run: a log held in a class's property (a
    /// zone's) is accessed once for the walk, not once per entry (each such
    /// access is a runtime exclusivity check, about a hundred instructions).
    mutating func walkLive(from sequence: Int64, _ visit: (_ sequence: Int64, _ key: Key) -> Bool) -> Int64? {
        var start = Int(max(0, sequence - firstSequence))
        while start < keys.count {
            let i = find(start)
            guard i < keys.count, let key = keys[i] else { return nil }
            let entrySequence = firstSequence + Int64(i)
            if !visit(entrySequence, key) { return entrySequence }
            start = i + 1
        }
        return nil
    }

    private mutating func find(_ start: Int) -> Int {
        let count = keys.count
        var i = start
        while i < count {
            let parent = Int(next[i])
            if parent == i { return i }
            if parent >= count { return count }
            let grandparent = Int(next[parent])
            next[i] = Int32(grandparent)
            i = grandparent
        }
        return count
    }
}
