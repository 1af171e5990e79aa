import Testing
@testable import SyncInspector

@Suite("Layout")
struct LayoutTests {
    @Test func fixedPartsGetTheirSizeAndFillTakesTheRest() {
        let rows = Rect(x: 0, y: 0, width: 80, height: 24).splitRows([.fixed(1), .fill, .fixed(1)])
        #expect(rows == [
            Rect(x: 0, y: 0, width: 80, height: 1),
            Rect(x: 0, y: 1, width: 80, height: 22),
            Rect(x: 0, y: 23, width: 80, height: 1),
        ])
    }

    @Test func ratiosShareTheRestExactly() {
        let columns = Rect(x: 5, y: 2, width: 10, height: 3).splitColumns([.ratio(1), .ratio(2)])
        #expect(columns.map(\.width) == [3, 7])
        #expect(columns.map(\.x) == [5, 8])
        let thirds = Rect(x: 0, y: 0, width: 100, height: 1).splitColumns([.fill, .fill, .fill])
        #expect(thirds.map(\.width).reduce(0, +) == 100)
    }

    @Test func spacingGoesBetweenParts() {
        let columns = Rect(x: 0, y: 0, width: 11, height: 1).splitColumns([.fixed(3), .fill, .fixed(3)], spacing: 1)
        #expect(columns.map(\.x) == [0, 4, 8])
        #expect(columns.map(\.width) == [3, 3, 3])
    }

    @Test func percentTakesAShareOfTheWhole() {
        let columns = Rect(x: 0, y: 0, width: 50, height: 1).splitColumns([.percent(40), .fill])
        #expect(columns.map(\.width) == [20, 30])
    }

    @Test func fixedPartsShrinkWhenThereIsNotEnoughRoom() {
        let rows = Rect(x: 0, y: 0, width: 1, height: 5).splitRows([.fixed(4), .fixed(4), .fill])
        #expect(rows.map(\.height) == [4, 1, 0])
    }

    @Test func centeredAndInsetStayInside() {
        let screen = Rect(x: 0, y: 0, width: 80, height: 24)
        #expect(screen.centered(width: 20, height: 4) == Rect(x: 30, y: 10, width: 20, height: 4))
        #expect(screen.centered(width: 200, height: 4).width == 80)
        #expect(Rect(x: 2, y: 2, width: 3, height: 3).inset(by: 2).isEmpty)
    }
}
