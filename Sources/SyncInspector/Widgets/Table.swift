/// One row of a table: a string per column and an optional style (for
/// example errors in red). A selected row uses the theme's selection style.
public struct TableRow: Hashable, Sendable {
    public var cells: [String]
    public var style: Style?

    public init(_ cells: [String], style: Style? = nil) {
        self.cells = cells
        self.style = style
    }
}

/// Where a table gets its rows. The table asks for `rowCount` and then only
/// for the rows it shows, so a provider over 100,000 rows costs the same to
/// draw as one over 100.
public protocol TableRowProvider {
    var rowCount: Int { get }
    func row(at index: Int) -> TableRow
}

/// Rows held in an array.
public struct ArrayRowProvider: TableRowProvider, Sendable {
    public var rows: [TableRow]
    public init(_ rows: [TableRow]) { self.rows = rows }
    public var rowCount: Int { rows.count }
    public func row(at index: Int) -> TableRow { rows[index] }
}

/// Rows computed on demand by a closure.
public struct ClosureRowProvider: TableRowProvider {
    public let rowCount: Int
    private let make: (Int) -> TableRow

    public init(count: Int, row: @escaping (Int) -> TableRow) {
        self.rowCount = max(0, count)
        self.make = row
    }

    public func row(at index: Int) -> TableRow { make(index) }
}

/// A column: header title, width and alignment.
public struct TableColumn: Hashable, Sendable {
    public var title: String
    public var width: Constraint
    public var alignment: Alignment

    public init(_ title: String, width: Constraint = .fill, alignment: Alignment = .left) {
        self.title = title
        self.width = width
        self.alignment = alignment
    }
}

/// Selection and scroll position of a table, kept in the UI state.
///
/// The methods take the number of rows and how many fit on screen, and keep
/// the selection visible with as little scrolling as possible.
public struct TableState: Hashable, Sendable {
    /// The selected row; nil only when there are no rows.
    public var selection: Int?
    /// The first row shown.
    public var offset: Int

    public init(selection: Int? = 0, offset: Int = 0) {
        self.selection = selection
        self.offset = max(0, offset)
    }

    /// The first row to show: `offset` moved as little as needed so the
    /// selection is visible and no space is wasted past the last row.
    public func visibleOffset(rowCount: Int, visibleRows: Int) -> Int {
        guard rowCount > 0, visibleRows > 0 else { return 0 }
        var first = min(max(0, offset), max(0, rowCount - visibleRows))
        if let selection {
            let selected = min(max(0, selection), rowCount - 1)
            if selected < first {
                first = selected
            } else if selected >= first + visibleRows {
                first = selected - visibleRows + 1
            }
        }
        return first
    }

    /// Brings the state in line with the rows: selection inside them (the
    /// first row when there was none), selection visible.
    public mutating func clamp(rowCount: Int, visibleRows: Int) {
        if rowCount <= 0 {
            selection = nil
            offset = 0
            return
        }
        selection = min(max(0, selection ?? 0), rowCount - 1)
        offset = visibleOffset(rowCount: rowCount, visibleRows: visibleRows)
    }

    /// Selects row `index` (clamped to the rows) and scrolls it into view.
    public mutating func select(_ index: Int, rowCount: Int, visibleRows: Int) {
        selection = index
        clamp(rowCount: rowCount, visibleRows: visibleRows)
    }

    /// Moves the selection by `delta` rows (negative is up), stopping at the ends.
    public mutating func moveSelection(by delta: Int, rowCount: Int, visibleRows: Int) {
        let current = selection ?? 0
        let (target, overflow) = current.addingReportingOverflow(delta)
        select(overflow ? (delta < 0 ? 0 : rowCount - 1) : target, rowCount: rowCount, visibleRows: visibleRows)
    }

    /// Handles Up, Down, PageUp, PageDown, Home and End.
    /// - Returns: whether the state changed.
    @discardableResult
    public mutating func handle(_ key: KeyEvent, rowCount: Int, visibleRows: Int) -> Bool {
        let before = self
        let page = max(1, visibleRows)
        switch key {
        case .up: moveSelection(by: -1, rowCount: rowCount, visibleRows: visibleRows)
        case .down: moveSelection(by: 1, rowCount: rowCount, visibleRows: visibleRows)
        case .pageUp: moveSelection(by: -page, rowCount: rowCount, visibleRows: visibleRows)
        case .pageDown: moveSelection(by: page, rowCount: rowCount, visibleRows: visibleRows)
        case .home: select(0, rowCount: rowCount, visibleRows: visibleRows)
        case .end: select(rowCount - 1, rowCount: rowCount, visibleRows: visibleRows)
        default: return false
        }
        return self != before
    }
}

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
                buffer.write(
                    TextWidth.pad(column.title, to: columnArea.width, alignment: column.alignment),
                    x: columnArea.x, y: y, style: theme.tableHeader, clip: columnArea)
            }
            y += 1
        }
        let visible = area.maxY - y
        guard visible > 0 else { return }
        let count = rows.rowCount
        if count <= 0 {
            buffer.write(emptyMessage, x: area.x, y: y, style: theme.muted, clip: area)
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
                let text = columnIndex < row.cells.count ? row.cells[columnIndex] : ""
                buffer.write(
                    TextWidth.pad(text, to: columnArea.width, alignment: columns[columnIndex].alignment),
                    x: columnArea.x, y: rowY, style: style,
                    clip: Rect(x: columnArea.x, y: rowY, width: columnArea.width, height: 1))
            }
        }
    }
}
