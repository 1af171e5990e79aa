/// The records pane's rows in the order shown, kept in chunks of about
/// ``chunkSize`` rows: a change moves the rows of the chunks it touches,
/// not every row after it. In a zone of 100,000 records that changes every
/// frame, a flat array moved its whole tail once for the removals and once
/// for the insertions of each frame (about 11 ms a second of the live loop).
///
/// Positions are plain offsets from 0, as in an array; reading one finds its
/// chunk by binary search over the chunks' running ends.
public struct RecordRows: RandomAccessCollection, MutableCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    /// Rows a chunk is cut to when it is built or split; a chunk is split once
    /// it holds more than twice as many, and neighbours that fit together in
    /// one are joined after removals.
    static let chunkSize = 1024

    /// No chunk is empty.
    private var chunks: [[RecordRow]] = []
    /// `ends[c]`: the rows in chunks `0...c`.
    private var ends: [Int] = []

    public init() {}

    public init(_ rows: some Sequence<RecordRow>) {
        chunks = Self.chunked(Array(rows))
        recount()
    }

    public init(arrayLiteral rows: RecordRow...) {
        self.init(rows)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.last ?? 0 }

    public subscript(position: Int) -> RecordRow {
        get {
            precondition(position >= 0 && position < endIndex, "row \(position) of \(endIndex)")
            let (chunk, offset) = locate(position)
            return chunks[chunk][offset]
        }
        set {
            precondition(position >= 0 && position < endIndex, "row \(position) of \(endIndex)")
            let (chunk, offset) = locate(position)
            chunks[chunk][offset] = newValue
        }
    }

    /// Walks chunk by chunk (no search per row).
    public func makeIterator() -> Iterator {
        Iterator(chunks: chunks)
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let chunks: [[RecordRow]]
        private var chunk = 0
        private var offset = 0

        fileprivate init(chunks: [[RecordRow]]) {
            self.chunks = chunks
        }

        public mutating func next() -> RecordRow? {
            guard chunk < chunks.count else { return nil }
            let row = chunks[chunk][offset]
            offset += 1
            if offset == chunks[chunk].count {
                chunk += 1
                offset = 0
            }
            return row
        }
    }

    /// The same rows in the same order, however they are chunked.
    public static func == (lhs: RecordRows, rhs: RecordRows) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    /// The first position whose row is not `isBefore` (the count when every
    /// row is), for rows in which every row that is comes first: a binary
    /// search over the chunks' last rows, then in one chunk.
    public func partitionPoint(_ isBefore: (RecordRow) -> Bool) -> Int {
        // The rows are read in place (borrowed), not copied out: a copy would
        // retain and release each row's strings and records at every step.
        chunks.withUnsafeBufferPointer { chunks in
            // No chunk is empty.
            let chunk = Self.firstFailing(count: chunks.count) { c in chunks[c].withUnsafeBufferPointer { isBefore($0[$0.count - 1]) } }
            guard chunk < chunks.count else { return endIndex }
            return start(of: chunk) + chunks[chunk].withUnsafeBufferPointer { rows in Self.firstFailing(count: rows.count) { isBefore(rows[$0]) } }
        }
    }

    // MARK: Edits

    /// Removes the rows at `indices` (ascending, distinct): each chunk that
    /// holds some moves its own rows once.
    mutating func removeAll(atSortedIndices indices: [Int]) {
        guard !indices.isEmpty else { return }
        var i = 0
        var shrunk = false
        while i < indices.count {
            // `ends` still counts the rows before the removals: the indices are theirs.
            let chunk = locate(indices[i]).chunk
            let start = start(of: chunk)
            var local: [Int] = []
            while i < indices.count && indices[i] < ends[chunk] {
                local.append(indices[i] - start)
                i += 1
            }
            chunks[chunk].removeAll(atSortedIndices: local)
            shrunk = shrunk || chunks[chunk].count < Self.chunkSize / 2
        }
        if shrunk { joinSmallChunks() }
        recount()
    }

    /// Inserts `rows[j]` before the row now at `positions[j]` (`positions`
    /// non-decreasing, each in `0...count`): each chunk that takes some moves
    /// its own rows once, and is split if it grew past twice ``chunkSize``.
    mutating func insert(_ rows: [RecordRow], atSortedPositions positions: [Int]) {
        guard !rows.isEmpty else { return }
        guard !chunks.isEmpty else {
            self = RecordRows(rows)
            return
        }
        var j = 0
        var grown: [Int] = []
        while j < rows.count {
            // The chunk holding the row now at that position; the last one takes the rows at the end.
            let chunk = positions[j] >= endIndex ? chunks.count - 1 : locate(positions[j]).chunk
            let start = start(of: chunk)
            let isLast = chunk == chunks.count - 1
            var local: [Int] = []
            var taken: [RecordRow] = []
            while j < rows.count && (isLast || positions[j] < ends[chunk]) {
                local.append(positions[j] - start)
                taken.append(rows[j])
                j += 1
            }
            chunks[chunk].insert(taken, atSortedPositions: local)
            if chunks[chunk].count > 2 * Self.chunkSize { grown.append(chunk) }
        }
        // From the back: the chunks before a split keep their numbers.
        for chunk in grown.reversed() {
            chunks.replaceSubrange(chunk...chunk, with: Self.chunked(chunks[chunk]))
        }
        recount()
    }

    // MARK: Chunks

    /// `rows` cut into chunks of ``chunkSize`` (the last one shorter).
    private static func chunked(_ rows: [RecordRow]) -> [[RecordRow]] {
        stride(from: 0, to: rows.count, by: chunkSize).map { Array(rows[$0..<Swift.min($0 + chunkSize, rows.count)]) }
    }

    /// The chunk holding `position` (in `0..<count`), and the offset in it.
    private func locate(_ position: Int) -> (chunk: Int, offset: Int) {
        let chunk = Self.firstFailing(count: ends.count) { ends[$0] <= position }
        return (chunk, position - start(of: chunk))
    }

    /// The first of `0..<count` for which `passes` is false (`count` when
    /// none is), where every index that passes comes first: the one binary
    /// search the chunks, a chunk's rows and the running ends all use.
    private static func firstFailing(count: Int, _ passes: (Int) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if passes(mid) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The position of chunk `chunk`'s first row (the count for one past the last).
    private func start(of chunk: Int) -> Int {
        chunk > 0 ? ends[chunk - 1] : 0
    }

    /// Drops empty chunks and joins neighbours that fit in one chunk together,
    /// so the chunks stay about as many as the rows need, not as many as they once were.
    private mutating func joinSmallChunks() {
        var joined: [[RecordRow]] = []
        joined.reserveCapacity(chunks.count)
        for chunk in chunks where !chunk.isEmpty {
            if !joined.isEmpty, joined[joined.count - 1].count + chunk.count <= Self.chunkSize {
                joined[joined.count - 1] += chunk
            } else {
                joined.append(chunk)
            }
        }
        chunks = joined
    }

    private mutating func recount() {
        ends.removeAll(keepingCapacity: true)
        var total = 0
        for chunk in chunks {
            total += chunk.count
            ends.append(total)
        }
    }
}
