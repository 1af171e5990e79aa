import SyncCore
import Testing
@testable import SyncInspector

/// ``RecordRows`` holds the same rows, in the same order, as an array given
/// the same edits, whatever its chunks look like.
@Suite struct RecordRowsTests {
    private static func row(_ n: Int) -> RecordRow {
        RecordRow.merged(name: "r\(n)", server: nil, device: nil, hasPendingChange: n % 7 == 0)
    }

    /// Random batches of removals and insertions, small and large, on a
    /// list that starts empty, grows past many chunks and shrinks again:
    /// after each batch the rows read (by position, and by iteration) are
    /// the array's, and the chunks' running ends add up.
    @Test func randomEditsMatchAnArray() throws {
        var random = SeededRandom(seed: 23)
        var array: [RecordRow] = []
        var rows = RecordRows()
        var next = 0
        for step in 0..<300 {
            // Grow for the first 120 batches, then mostly shrink.
            let growing = step < 120
            let removals = array.isEmpty ? 0 : Int.random(in: 0...(growing ? array.count / 20 : array.count / 4), using: &random)
            let indices = Array(Set((0..<removals).map { _ in Int.random(in: 0..<array.count, using: &random) })).sorted()
            array.removeAll(atSortedIndices: indices)
            rows.removeAll(atSortedIndices: indices)
            // Insertions: sometimes spread, sometimes all at one place (a chunk then splits).
            let insertions = Int.random(in: 0...(growing ? 600 : 60), using: &random)
            let bunched = Bool.random(using: &random)
            let at = Int.random(in: 0...array.count, using: &random)
            let positions = (0..<insertions).map { _ in bunched ? at : Int.random(in: 0...array.count, using: &random) }.sorted()
            let inserted = positions.indices.map { _ in
                next += 1
                return Self.row(next)
            }
            array.insert(inserted, atSortedPositions: positions)
            rows.insert(inserted, atSortedPositions: positions)
            try #require(rows.count == array.count, "step \(step)")
            try #require(Array(rows) == array, "step \(step): iteration")
            if step % 10 == 0 { try #require(rows.indices.allSatisfy { rows[$0] == array[$0] }, "step \(step): positions") }
        }
        #expect(next > 30_000, "the list grew past many chunks")
    }

    /// The two-level binary search finds the same place as a search of the
    /// whole array, at every place, in chunks of every shape.
    @Test func partitionPointMatchesAnArraysSearch() {
        func named(_ n: Int) -> RecordRow {
            RecordRow.merged(name: "r" + String(repeating: "0", count: 5 - String(n).count) + String(n), server: nil, device: nil, hasPendingChange: false)
        }
        var array = (0..<6000).filter { $0 % 2 == 0 }.map(named)
        var rows = RecordRows(array)
        // Other chunk shapes: a bunch of rows in one chunk (it splits), removals across chunks (they join).
        let odd = (2001..<4001).filter { $0 % 2 == 1 }.map(named)
        let positions = odd.map { row in array.firstIndex { $0.name > row.name } ?? array.count }
        array.insert(odd, atSortedPositions: positions)
        rows.insert(odd, atSortedPositions: positions)
        let removed = Array(stride(from: 10, to: array.count, by: 3))
        array.removeAll(atSortedIndices: removed)
        rows.removeAll(atSortedIndices: removed)
        #expect(Array(rows) == array)
        for probe in stride(from: -1, through: 6001, by: 1) {
            let name = probe < 0 ? "" : named(probe).name
            let expected = array.firstIndex { !($0.name < name) } ?? array.count
            if rows.partitionPoint({ $0.name < name }) != expected {
                Issue.record("probe \(probe): \(rows.partitionPoint { $0.name < name }) vs \(expected)")
                return
            }
        }
        #expect(RecordRows().partitionPoint { _ in true } == 0)
    }

    @Test func replacingARowKeepsTheOthers() {
        var rows = RecordRows((0..<3000).map(Self.row))
        rows[2500] = Self.row(-1)
        rows[0] = Self.row(-2)
        #expect(rows[2500].name == "r-1")
        #expect(rows[0].name == "r-2")
        #expect(rows.map(\.name) == ["r-2"] + (1..<2500).map { "r\($0)" } + ["r-1"] + (2501..<3000).map { "r\($0)" })
    }

    @Test func equalityIsOfTheRowsNotOfTheChunks() {
        let all = (0..<5000).map(Self.row)
        var edited = RecordRows(all)
        // Removing and putting back the same rows leaves other chunks than building at once.
        edited.removeAll(atSortedIndices: Array(1000..<3000))
        edited.insert(Array(all[1000..<3000]), atSortedPositions: Array(repeating: 1000, count: 2000))
        #expect(edited == RecordRows(all))
        #expect(edited != RecordRows(all.dropLast()))
        #expect(RecordRows() == [])
        #expect(RecordRows().isEmpty)
    }

    @Test func insertingIntoAnEmptyListAndEmptyingIt() {
        var rows = RecordRows()
        rows.insert([Self.row(1), Self.row(2)], atSortedPositions: [0, 0])
        #expect(rows.map(\.name) == ["r1", "r2"])
        rows.removeAll(atSortedIndices: [0, 1])
        #expect(rows.isEmpty)
        rows.insert([Self.row(3)], atSortedPositions: [0])
        #expect(rows.map(\.name) == ["r3"])
    }
}
