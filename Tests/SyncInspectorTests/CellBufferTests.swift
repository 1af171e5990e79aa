import SyncCore
import Testing
@testable import SyncInspector

@Suite("Cell buffer")
struct CellBufferTests {
    @Test func newBufferIsBlank() {
        let buffer = CellBuffer(width: 3, height: 2)
        #expect(buffer.lines() == ["   ", "   "])
        #expect(buffer.render() == "\n")
    }

    @Test func writePlacesTextAndReturnsTheNextColumn() {
        var buffer = CellBuffer(width: 8, height: 1)
        let end = buffer.write("abc", x: 2, y: 0, style: .bold)
        #expect(end == 5)
        #expect(buffer.lines() == ["  abc   "])
        #expect(buffer[x: 2, y: 0].style == .bold)
        #expect(buffer[x: 5, y: 0].style == .plain)
    }

    @Test func writeIsClippedToTheBufferEdges() {
        var buffer = CellBuffer(width: 5, height: 2)
        buffer.write("abcdefgh", x: 2, y: 0)
        buffer.write("xyz", x: -1, y: 1)
        buffer.write("never", x: 0, y: 2)
        #expect(buffer.lines() == ["  abc", "yz   "])
    }

    @Test func writeIsClippedToARect() {
        var buffer = CellBuffer(width: 10, height: 3)
        let clip = Rect(x: 2, y: 1, width: 4, height: 1)
        buffer.write("abcdefgh", x: 0, y: 1, clip: clip)
        buffer.write("outside", x: 2, y: 0, clip: clip)
        #expect(buffer.lines() == ["          ", "  cdef    ", "          "])
    }

    @Test func wideCharactersTakeTwoCellsWithAContinuation() {
        var buffer = CellBuffer(width: 8, height: 1)
        let end = buffer.write("a日b", x: 0, y: 0)
        #expect(end == 4)
        #expect(buffer[x: 1, y: 0].text == "日")
        #expect(buffer[x: 1, y: 0].isWide)
        #expect(buffer[x: 2, y: 0].isContinuation)
        #expect(buffer[x: 3, y: 0].text == "b")
        // Each line is exactly `width` columns on screen.
        #expect(buffer.lines() == ["a日b    "])
        #expect(TextWidth.of(buffer.lines()[0]) == 8)
    }

    @Test func columnsStayAlignedWithMixedCJKAndEmoji() {
        var buffer = CellBuffer(width: 10, height: 3)
        buffer.write("名前", x: 0, y: 0)
        buffer.write("|", x: 6, y: 0)
        buffer.write("😀x", x: 0, y: 1)
        buffer.write("|", x: 6, y: 1)
        buffer.write("abcd", x: 0, y: 2)
        buffer.write("|", x: 6, y: 2)
        #expect(buffer.lines() == ["名前  |   ", "😀x   |   ", "abcd  |   "])
        for y in 0..<3 {
            #expect(buffer[x: 6, y: y].text == "|")
        }
    }

    @Test func wideCharacterIsNotSplitAtTheRightEdgeOfTheBuffer() {
        var buffer = CellBuffer(width: 5, height: 1)
        buffer.write("abcd", x: 0, y: 0)
        let end = buffer.write("ab日", x: 2, y: 0)
        // 日 would need columns 4 and 5; column 4 is blanked instead.
        #expect(end == 6)
        #expect(buffer.lines() == ["abab "])
        #expect(!buffer[x: 4, y: 0].isWide)
    }

    @Test func wideCharacterIsNotSplitAtTheEdgeOfAClip() {
        var buffer = CellBuffer(width: 8, height: 1)
        buffer.write("........", x: 0, y: 0)
        buffer.write("日本語", x: 1, y: 0, clip: Rect(x: 1, y: 0, width: 5, height: 1))
        #expect(buffer.lines() == [".日本 .."])
    }

    @Test func wideCharacterCutByTheLeftClipEdgeShowsABlank() {
        var buffer = CellBuffer(width: 6, height: 1)
        buffer.write("日本語", x: -1, y: 0)
        #expect(buffer.lines() == [" 本語 "])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = CellBuffer(width: 6, height: 1)
        buffer.write("日本語", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)  // right half of 日
        #expect(buffer.lines() == [" x本語"])
        buffer.write("y", x: 2, y: 0)  // left half of 本
        #expect(buffer.lines() == [" xy 語"])
        #expect(!buffer[x: 3, y: 0].isContinuation)
    }

    @Test func controlCharactersAreShownAsSpacesAndZeroWidthOnesDropped() {
        var buffer = CellBuffer(width: 6, height: 1)
        let end = buffer.write("a\tb\u{200B}c\n", x: 0, y: 0)
        #expect(end == 5)
        #expect(buffer.lines() == ["a bc  "])
    }

    @Test func fillCoversTheRectOnly() {
        var buffer = CellBuffer(width: 4, height: 3)
        buffer.fill(Rect(x: 1, y: 1, width: 2, height: 5), character: "#", style: .reverse)
        #expect(buffer.lines() == ["    ", " ## ", " ## "])
        #expect(buffer[x: 1, y: 1].style == .reverse)
        #expect(buffer[x: 0, y: 1].style == .plain)
    }

    @Test func diffOfIdenticalBuffersIsEmpty() {
        var buffer = CellBuffer(width: 4, height: 2)
        buffer.write("ab", x: 0, y: 0)
        #expect(buffer.diff(from: buffer).isEmpty)
    }

    @Test func diffListsOnlyChangedCellsInRowOrder() {
        var before = CellBuffer(width: 4, height: 2)
        before.write("abcd", x: 0, y: 0)
        var after = before
        after.write("X", x: 2, y: 0)
        after.write("Y", x: 1, y: 1, style: .bold)
        let changes = after.diff(from: before)
        #expect(changes.map { [$0.x, $0.y] } == [[2, 0], [1, 1]])
        #expect(changes.map(\.cell.text) == ["X", "Y"])
        #expect(changes[1].cell.style == .bold)
    }

    @Test func diffCountsAStyleOnlyChange() {
        var before = CellBuffer(width: 3, height: 1)
        before.write("abc", x: 0, y: 0)
        var after = before
        after.updateStyle(in: Rect(x: 1, y: 0, width: 1, height: 1)) { $0 = .reverse }
        #expect(after.diff(from: before).map(\.x) == [1])
    }

    @Test func diffIncludesTheWideCellOfAChangedContinuation() {
        var before = CellBuffer(width: 4, height: 1)
        before.write("ab", x: 0, y: 0)
        var after = before
        after.write("日", x: 0, y: 0)
        let changes = after.diff(from: before)
        #expect(changes.map(\.x) == [0, 1])
        #expect(changes[0].cell.isWide)
        #expect(changes[1].cell.isContinuation)
    }

    @Test func diffFromADifferentSizeOrNothingIsEveryCell() {
        let small = CellBuffer(width: 2, height: 2)
        let big = CellBuffer(width: 3, height: 2)
        #expect(big.diff(from: small).count == 6)
        #expect(big.diff(from: nil).count == 6)
    }

    @Test func drawCopiesAnotherBufferAtAnOffset() {
        var target = CellBuffer(width: 5, height: 2)
        var source = CellBuffer(width: 2, height: 1)
        source.write("日", x: 0, y: 0)
        target.draw(source, x: 2, y: 1)
        #expect(target.lines() == ["     ", "  日 "])
    }

    /// ASCII writes and fills of one-column characters take a row at once;
    /// they must leave every cell as putting their cells one by one does,
    /// wide characters cut at either end included (styles show which cells
    /// were blanked from which side).
    @Test func rowWritesAndFillsMatchPuttingCellsOneByOne() {
        var random = SeededRandom(seed: 5)
        let styles: [Style] = [.plain, .bold, .reverse, Style(foreground: .red)]
        for round in 0..<400 {
            var fast = CellBuffer(width: 12, height: 3)
            var slow = fast
            for _ in 0..<8 {
                let style = styles[Int.random(in: 0..<styles.count, using: &random)]
                let x = Int.random(in: -3...12, using: &random)
                let y = Int.random(in: -1...3, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    // Wide characters to cut (the same on both).
                    fast.write("日本語", x: x, y: y, style: style)
                    slow.write("日本語", x: x, y: y, style: style)
                case 1:
                    let text = String("abcdefghij".prefix(Int.random(in: 0...10, using: &random)))
                    let clip = Rect(x: Int.random(in: -1...8, using: &random), y: 0, width: Int.random(in: 0...12, using: &random), height: 3)
                    let end = fast.write(text, x: x, y: y, style: style, clip: clip)
                    #expect(end == x + text.count)
                    let area = clip.intersection(slow.bounds)
                    for (i, character) in text.enumerated() where y >= area.y && y < area.maxY && x + i >= area.x && x + i < area.maxX {
                        slow.put(Cell(character, style: style), x: x + i, y: y)
                    }
                default:
                    let rect = Rect(x: x, y: y, width: Int.random(in: 0...6, using: &random), height: Int.random(in: 0...3, using: &random))
                    fast.fill(rect, character: "#", style: style)
                    let area = rect.intersection(slow.bounds)
                    for row in area.y..<max(area.y, area.maxY) {
                        for column in area.x..<max(area.x, area.maxX) { slow.put(Cell("#", style: style), x: column, y: row) }
                    }
                }
                if fast != slow {
                    Issue.record("round \(round): \(fast.lines()) vs \(slow.lines())")
                    return
                }
            }
        }
    }

    @Test func renderTrimsTrailingSpacesUnlessAsked() {
        var buffer = CellBuffer(width: 4, height: 2)
        buffer.write("ab", x: 0, y: 0)
        #expect(buffer.render() == "ab\n")
        #expect(buffer.render(trimmingTrailingSpaces: false) == "ab  \n    ")
    }
}
