/// A scrolling table (or, with one column and no header, a list).
///
/// Draws only the rows that fit, asking the provider for just those.
public struct Table {
    public var columns: [TableColumn]
    public var showsHeader: Bool
    public var focused: Bool
    public var theme: Theme
    /// Shown (muted) when there are no rows.
    public var emptyMessage: String

    public init(
        columns: [TableColumn], showsHeader: Bool = true, focused: Bool = true,
        theme: Theme = .monochrome, emptyMessage: String = "(no rows)"
    ) {
        self.columns = columns
        self.showsHeader = showsHeader
        self.focused = focused
        self.theme = theme
        self.emptyMessage = emptyMessage
    }

    /// How many rows fit in `area` (the header takes one line).
    public func visibleRows(in area: Rect) -> Int {
        max(0, area.height - (showsHeader ? 1 : 0))
    }

    public func render(into buffer: inout CellBuffer, area: Rect, rows: some TableRowProvider, state: TableState) {
        let area = area.intersection(buffer.bounds)
        buffer.fill(area, style: theme.normal)
        guard !area.isEmpty else { return }
        let columnAreas = area.splitColumns(columns.map(\.width), spacing: 1)
        var y = area.y
        if showsHeader {
            buffer.fill(area.row(0), style: theme.tableHeader)
            for (column, columnArea) in zip(columns, columnAreas) {
                Self.write(column.title, in: columnArea, y: y, alignment: column.alignment, style: theme.tableHeader, into: &buffer)
            }
            y += 1
        }
        let visible = area.maxY - y
        guard visible > 0 else { return }
        let count = rows.rowCount
        if count <= 0 {
            // A message cut at the table's edge ends with "…", as a cut diagnosis does.
            buffer.write(TextWidth.truncate(emptyMessage, to: area.width), x: area.x, y: y, style: theme.muted, clip: area)
            return
        }
        let first = state.visibleOffset(rowCount: count, visibleRows: visible)
        for line in 0..<min(visible, count - first) {
            let index = first + line
            let row = rows.row(at: index)
            let style: Style
            if index == state.selection {
                style = focused ? theme.selection : theme.inactiveSelection
            } else {
                style = row.style ?? theme.normal
            }
            let rowY = y + line
            buffer.fill(Rect(x: area.x, y: rowY, width: area.width, height: 1), style: style)
            for (columnIndex, columnArea) in columnAreas.enumerated() {
                guard columnIndex < row.cells.count else { continue }
                Self.write(row.cells[columnIndex], in: columnArea, y: rowY, alignment: columns[columnIndex].alignment, style: style, into: &buffer)
            }
        }
    }

    /// Writes `text` on row `y` of a column, cut to its width and aligned in
    /// it. The row was filled in `style` first, so the columns the text leaves
    /// are already blank: no padding is built.
    private static func write(_ text: String, in column: Rect, y: Int, alignment: Alignment, style: Style, into buffer: inout CellBuffer) {
        let cut = TextWidth.truncate(text, to: column.width)
        let gap = max(0, column.width - TextWidth.of(cut))
        let offset = switch alignment {
        case .left: 0
        case .right: gap
        case .center: gap / 2
        }
        buffer.write(cut, x: column.x + offset, y: y, style: style, clip: Rect(x: column.x, y: y, width: column.width, height: 1))
    }
}
