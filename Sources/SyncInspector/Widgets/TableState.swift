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

    /// As ``handle(_:rowCount:visibleRows:)``, for a table some of whose rows
    /// cannot be selected (a heading, a line under a row): the selection
    /// skips them in the direction of travel, else comes back to the
    /// nearest row it may take.
    /// - Returns: whether the key moved the selection to a row it may take.
    @discardableResult
    public mutating func handle(_ key: KeyEvent, rowCount: Int, visibleRows: Int, selectable: (Int) -> Bool) -> Bool {
        var table = self
        let before = table.selection ?? 0
        guard table.handle(key, rowCount: rowCount, visibleRows: visibleRows) else { return false }
        let landed = table.selection ?? 0
        guard let index = Self.nearest(to: landed, step: landed >= before ? 1 : -1, rowCount: rowCount, selectable: selectable) else { return false }
        table.select(index, rowCount: rowCount, visibleRows: visibleRows)
        self = table
        return true
    }

    /// As ``clamp(rowCount:visibleRows:)``; a selection on a row it may not
    /// take moves up to the nearest it may (the row the line is under).
    public mutating func clamp(rowCount: Int, visibleRows: Int, selectable: (Int) -> Bool) {
        clamp(rowCount: rowCount, visibleRows: visibleRows)
        guard let selection, !selectable(selection),
              let index = Self.nearest(to: selection, step: -1, rowCount: rowCount, selectable: selectable)
        else { return }
        select(index, rowCount: rowCount, visibleRows: visibleRows)
    }

    /// The first row from `index` on, by `step`, that may be selected; else the first the other way.
    private static func nearest(to index: Int, step: Int, rowCount: Int, selectable: (Int) -> Bool) -> Int? {
        for direction in [step, -step] {
            var row = index
            while row >= 0, row < rowCount {
                if selectable(row) { return row }
                row += direction
            }
        }
        return nil
    }
}
