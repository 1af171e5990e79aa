import SyncCore

/// The record names of one zone in ascending order, kept in short sorted
/// chunks so that adding or removing a name costs the size of a chunk and
/// finding the name at an offset costs the number of chunks, not a sort of
/// the whole zone. ``InMemoryLocalStore`` keeps one per zone that has been
/// read by offset.
struct SortedRecordNames {
    /// The most names a chunk holds before it splits in two.
    static let chunkLimit = 512

    private(set) var count = 0
    private var chunks: [[String]] = []

    init<Names: Sequence>(_ names: Names) where Names.Element == String {
        let sorted = names.sorted()
        count = sorted.count
        var start = 0
        while start < sorted.count {
            let end = min(start + Self.chunkLimit / 2, sorted.count)
            chunks.append(Array(sorted[start..<end]))
            start = end
        }
    }

    /// The name at `offset` in ascending order, or nil past the end.
    func name(atOffset offset: Int) -> String? {
        guard offset >= 0 && offset < count else { return nil }
        var remaining = offset
        for chunk in chunks {
            if remaining < chunk.count { return chunk[remaining] }
            remaining -= chunk.count
        }
        return nil
    }

    /// Adds `name` unless it is already there.
    mutating func insert(_ name: String) {
        guard !chunks.isEmpty else {
            chunks = [[name]]
            count = 1
            return
        }
        let c = chunkIndex(for: name)
        let i = Self.insertionPoint(of: name, in: chunks[c])
        if i < chunks[c].count && chunks[c][i] == name { return }
        chunks[c].insert(name, at: i)
        count += 1
        if chunks[c].count > Self.chunkLimit {
            let half = chunks[c].count / 2
            let upper = Array(chunks[c][half...])
            chunks[c].removeSubrange(half...)
            chunks.insert(upper, at: c + 1)
        }
    }

    /// Removes `name` if it is there.
    mutating func remove(_ name: String) {
        guard !chunks.isEmpty else { return }
        let c = chunkIndex(for: name)
        let i = Self.insertionPoint(of: name, in: chunks[c])
        guard i < chunks[c].count && chunks[c][i] == name else { return }
        chunks[c].remove(at: i)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
    }

    /// The chunk that holds `name` or would hold it: the first whose last
    /// name is not below it, or the last chunk.
    private func chunkIndex(for name: String) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][chunks[mid].count - 1] < name { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The first position in `chunk` whose name is not below `name`.
    private static func insertionPoint(of name: String, in chunk: [String]) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if chunk[mid] < name { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
