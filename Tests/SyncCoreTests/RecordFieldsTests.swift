import SyncCore
import Testing

@Suite struct RecordFieldsTests {
    @Test func fieldsStaySortedByNameWhateverTheInsertionOrder() {
        var fields = RecordFields()
        fields["zeta"] = "z"
        fields["alpha"] = 1
        fields["mid"] = 2.5
        #expect(fields.names == ["alpha", "mid", "zeta"])
    }

    @Test func settingNilRemovesAField() {
        var fields: RecordFields = ["a": "x", "b": "y"]
        fields["a"] = nil
        #expect(fields.names == ["b"])
        #expect(fields["a"] == nil)
    }

    @Test func mergingWritesOtherFieldsOverThese() {
        let base: RecordFields = ["a": "old", "b": "keep"]
        let merged = base.merging(["a": "new", "c": "added"])
        #expect(merged.dictionary == ["a": "new", "b": "keep", "c": "added"])
    }

    @Test func desiredKeysFilterNilKeepsAllEmptyKeepsNone() {
        let fields: RecordFields = ["a": 1, "b": 2, "c": 3]
        #expect(fields.filtered(to: nil) == fields)
        #expect(fields.filtered(to: []).isEmpty)
        #expect(fields.filtered(to: ["c", "a", "missing"]).names == ["a", "c"])
    }

    @Test func listValuesKnowTheirElementTypeEvenWhenEmpty() {
        let empty = FieldValue.list(.string, [])
        #expect(empty.typeName == "STRING_LIST")
        #expect(FieldValue.int64(3).typeName == "INT64")
    }

    @Test func seededRandomReplaysTheSameSequence() {
        var a = SeededRandom(seed: 42)
        var b = SeededRandom(seed: 42)
        #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
        var c = SeededRandom(seed: 43)
        #expect(a.next() != c.next())
    }

    @Test func virtualClockMovesOnlyWhenTold() {
        let clock = VirtualClock(start: 1_000)
        #expect(clock.now() == 1_000)
        clock.advance(by: 250)
        clock.advance(to: 900)
        #expect(clock.now() == 1_250)
    }
}
