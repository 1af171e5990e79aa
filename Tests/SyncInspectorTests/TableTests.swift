import Testing
@testable import SyncInspector

/// Counts which rows the table asks for.
final class CountingRowProvider: TableRowProvider {
    let rowCount: Int
    private(set) var requested: [Int] = []

    init(rowCount: Int) { self.rowCount = rowCount }

    func row(at index: Int) -> TableRow {
        requested.append(index)
        return TableRow(["\(index)", "record-\(index)"])
    }
}

@Suite("Table")
struct TableTests {
    let table = Table(columns: [TableColumn("#", width: .fixed(6), alignment: .right), TableColumn("Name")])

    @Test func rendersHeaderAndVisibleRowsWithTheSelectionHighlighted() {
        var buffer = CellBuffer(width: 20, height: 4)
        let rows = ArrayRowProvider((0..<5).map { TableRow(["\($0)", "zone-\($0)"]) })
        table.render(into: &buffer, area: buffer.bounds, rows: rows, state: TableState(selection: 1))
        #expect(buffer.lines() == [
            "     # Name         ",
            "     0 zone-0       ",
            "     1 zone-1       ",
            "     2 zone-2       ",
        ])
        #expect(buffer[x: 0, y: 2].style == Theme.monochrome.selection)
        #expect(buffer[x: 19, y: 2].style == Theme.monochrome.selection)
        #expect(buffer[x: 0, y: 1].style == Theme.monochrome.normal)
        #expect(buffer[x: 0, y: 0].style == Theme.monochrome.tableHeader)
    }

    @Test func unfocusedTableShowsTheInactiveSelectionStyle() {
        var buffer = CellBuffer(width: 20, height: 3)
        var unfocused = table
        unfocused.focused = false
        unfocused.render(
            into: &buffer, area: buffer.bounds, rows: ArrayRowProvider([TableRow(["1", "a"])]),
            state: TableState(selection: 0))
        #expect(buffer[x: 3, y: 1].style == Theme.monochrome.inactiveSelection)
    }

    @Test func longCellsAreTruncatedAndWideTextStaysInItsColumn() {
        var buffer = CellBuffer(width: 20, height: 3)
        let rows = ArrayRowProvider([
            TableRow(["1", "a-very-long-zone-name"]),
            TableRow(["22", "日本語のゾーン名です"]),
        ])
        Table(columns: [TableColumn("#", width: .fixed(3)), TableColumn("Name")], showsHeader: false)
            .render(into: &buffer, area: buffer.bounds, rows: rows, state: TableState(selection: nil))
        #expect(buffer.lines() == [
            "1   a-very-long-zon…",
            "22  日本語のゾーン… ",
            "                    ",
        ])
        #expect(TextWidth.of(buffer.lines()[1]) == 20)
    }

    @Test func rowStyleIsUsedForUnselectedRows() {
        var buffer = CellBuffer(width: 10, height: 2)
        let error = Style(foreground: .red)
        Table(columns: [TableColumn("x")], showsHeader: false).render(
            into: &buffer, area: buffer.bounds,
            rows: ArrayRowProvider([TableRow(["ok"]), TableRow(["bad"], style: error)]), state: TableState(selection: 0))
        #expect(buffer[x: 0, y: 1].style == error)
    }

    @Test func emptyTableShowsTheEmptyMessage() {
        var buffer = CellBuffer(width: 20, height: 3)
        table.render(into: &buffer, area: buffer.bounds, rows: ArrayRowProvider([]), state: TableState(selection: nil))
        #expect(buffer.lines()[1] == "(no rows)           ")
    }

    @Test func anEmptyMessageCutAtTheEdgeEndsWithAnEllipsis() {
        var buffer = CellBuffer(width: 20, height: 3)
        let table = Table(columns: [TableColumn("Name")], emptyMessage: "(a default zone has no change fetching)")
        table.render(into: &buffer, area: buffer.bounds, rows: ArrayRowProvider([]), state: TableState(selection: nil))
        #expect(buffer.lines()[1] == "(a default zone has…")
    }

    @Test func onlyVisibleRowsAreRequestedFromAHundredThousandRows() {
        var buffer = CellBuffer(width: 30, height: 10)
        let big = CountingRowProvider(rowCount: 100_000)
        table.render(into: &buffer, area: buffer.bounds, rows: big, state: TableState(selection: 50_000))
        // 9 rows fit under the header; the selection is the last of them.
        #expect(big.requested == Array(49_992...50_000))
        #expect(buffer.lines()[9].hasPrefix(" 50000 record-50000"))

        let small = CountingRowProvider(rowCount: 100)
        table.render(into: &buffer, area: buffer.bounds, rows: small, state: TableState(selection: 50))
        #expect(small.requested.count == big.requested.count)
    }

    @Test func keyboardNavigationKeepsTheSelectionVisible() {
        let rowCount = 100_000
        let visible = 9
        var state = TableState()
        for _ in 0..<9 {
            state.handle(.down, rowCount: rowCount, visibleRows: visible)
        }
        #expect(state.selection == 9)
        #expect(state.offset == 1)  // scrolled by exactly one row

        state.handle(.pageDown, rowCount: rowCount, visibleRows: visible)
        #expect(state.selection == 18)
        #expect(state.offset == 10)

        state.handle(.end, rowCount: rowCount, visibleRows: visible)
        #expect(state.selection == 99_999)
        #expect(state.offset == 99_991)

        state.handle(.up, rowCount: rowCount, visibleRows: visible)
        #expect(state.selection == 99_998)
        #expect(state.offset == 99_991)  // still visible: no scrolling

        state.handle(.home, rowCount: rowCount, visibleRows: visible)
        #expect(state == TableState(selection: 0, offset: 0))
        #expect(state.handle(.pageUp, rowCount: rowCount, visibleRows: visible) == false)
        #expect(state.handle(.character("j"), rowCount: rowCount, visibleRows: visible) == false)
    }

    @Test func selectionStopsAtTheEnds() {
        var state = TableState(selection: 3)
        state.moveSelection(by: Int.max, rowCount: 5, visibleRows: 2)
        #expect(state.selection == 4)
        state.moveSelection(by: Int.min, rowCount: 5, visibleRows: 2)
        #expect(state.selection == 0)
    }

    @Test func clampFollowsRowsThatShrinkOrDisappear() {
        var state = TableState(selection: 90, offset: 85)
        state.clamp(rowCount: 10, visibleRows: 5)
        #expect(state == TableState(selection: 9, offset: 5))
        state.clamp(rowCount: 0, visibleRows: 5)
        #expect(state.selection == nil)
        state.clamp(rowCount: 3, visibleRows: 5)
        #expect(state == TableState(selection: 0, offset: 0))
    }

    @Test func staleOffsetIsCorrectedWhenDrawing() {
        // After a resize the stored offset may hide the selection: the view still shows it.
        let state = TableState(selection: 40, offset: 0)
        #expect(state.visibleOffset(rowCount: 100, visibleRows: 10) == 31)
        #expect(TableState(selection: 2, offset: 95).visibleOffset(rowCount: 100, visibleRows: 10) == 2)
        #expect(TableState(selection: nil, offset: 95).visibleOffset(rowCount: 100, visibleRows: 10) == 90)
    }
}
