/// A cell that differs between two buffers.
public struct CellChange: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var cell: Cell

    public init(x: Int, y: Int, cell: Cell) {
        self.x = x
        self.y = y
        self.cell = cell
    }
}

/// A width × height grid of cells: what a screen shows, without a terminal.
///
/// Views draw into a buffer; the backend copies only the cells that differ
/// from the previously drawn buffer. Tests compare `lines()` with expected
/// strings, like ratatui's `TestBackend`.
///
/// Invariant: the cell right of a wide cell is always its continuation, and
/// a continuation always has a wide cell on its left. Writes that would break
/// a wide character in half blank the other half instead.
public struct CellBuffer: Hashable, Sendable {
    public let size: Size
    public private(set) var cells: [Cell]

    public init(size: Size, style: Style = .plain) {
        self.size = size
        self.cells = Array(repeating: .blank(style), count: size.width * size.height)
    }

    public init(width: Int, height: Int, style: Style = .plain) {
        self.init(size: Size(width: width, height: height), style: style)
    }

    public var width: Int { size.width }
    public var height: Int { size.height }
    /// The whole buffer as a rectangle at (0, 0).
    public var bounds: Rect { Rect(size: size) }

    /// The cell at (x, y); a blank cell outside the buffer.
    public subscript(x x: Int, y y: Int) -> Cell {
        guard bounds.contains(x: x, y: y) else { return .blank() }
        return cells[y * size.width + x]
    }

    // MARK: writing

    /// Puts one cell at (x, y). A wide cell that does not fit before the
    /// right edge becomes a blank; halves of wide characters it overwrites
    /// are blanked. Continuation cells cannot be put directly.
    public mutating func put(_ cell: Cell, x: Int, y: Int) {
        guard bounds.contains(x: x, y: y), !cell.isContinuation else { return }
        if cell.isWide && x + 1 >= size.width {
            put(.blank(cell.style), x: x, y: y)
            return
        }
        breakWideCharacter(at: x, y: y)
        if cell.isWide {
            breakWideCharacter(at: x + 1, y: y)
        }
        cells[y * size.width + x] = cell
        if cell.isWide {
            cells[y * size.width + x + 1] = .continuation(cell.style)
        }
    }

    /// Writes `text` on row `y` starting at column `x`, clipped to `clip` (and
    /// to the buffer). Wide characters are never split: one that would cross
    /// the clip's right edge is not drawn and the column left over is blanked.
    /// Control characters (tabs, newlines) are shown as spaces; zero-width
    /// characters are dropped.
    ///
    /// - Returns: the column after the last one the text reached (which may
    ///   lie beyond the clip when the text was cut).
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, clip: Rect? = nil) -> Int {
        let area = (clip ?? bounds).intersection(bounds)
        var column = x
        guard y >= area.y, y < area.maxY, area.width > 0 else {
            return x + TextWidth.of(text)
        }
        // Printable ASCII (most of what the panes show): each byte is one
        // character one column wide, so no grapheme breaking and no width lookups.
        if TextWidth.isPrintableASCII(text) {
            let utf8 = text.utf8
            let from = max(column, area.x)
            let to = min(column + utf8.count, area.maxX)
            if from < to {
                overwriteRow(y, from: from, to: to)
                let row = y * size.width
                var x = column
                for byte in utf8 {
                    if x >= to { break }
                    if x >= from { cells[row + x] = .ascii(byte, style: style) }
                    x += 1
                }
            }
            return column + utf8.count
        }
        for original in text {
            var character = original
            var w = TextWidth.of(character)
            if w == 0 {
                guard let first = original.unicodeScalars.first, TextWidth.of(first) < 0 else { continue }
                character = " "
                w = 1
            }
            if column >= area.maxX {
                column += w
                continue
            }
            if column + w <= area.x {
                column += w
                continue
            }
            if column < area.x || column + w > area.maxX {
                // Partly visible wide character: show its visible columns as blanks.
                for blankColumn in max(column, area.x)..<min(column + w, area.maxX) {
                    put(.blank(style), x: blankColumn, y: y)
                }
                column += w
                continue
            }
            put(Cell(character, style: style), x: column, y: y)
            column += w
        }
        return column
    }

    /// Fills `rect` (clipped to the buffer) with `character` in `style`.
    public mutating func fill(_ rect: Rect, character: Character = " ", style: Style = .plain) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        let cell = Cell(character, style: style)
        if !cell.isWide {
            for y in area.y..<area.maxY {
                overwriteRow(y, from: area.x, to: area.maxX)
                let row = y * size.width
                for x in area.x..<area.maxX { cells[row + x] = cell }
            }
            return
        }
        for y in area.y..<area.maxY {
            var x = area.x
            while x < area.maxX {
                if cell.isWide && x + 1 >= area.maxX {
                    put(.blank(style), x: x, y: y)
                } else {
                    put(cell, x: x, y: y)
                }
                x += cell.width
            }
        }
    }

    /// Changes the style of every cell in `rect`, keeping the text.
    public mutating func updateStyle(in rect: Rect, _ transform: (inout Style) -> Void) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX {
                transform(&cells[y * size.width + x].style)
            }
            // Keep both halves of a wide character in the same style.
            if area.x > 0, cells[y * size.width + area.x].isContinuation {
                cells[y * size.width + area.x - 1].style = cells[y * size.width + area.x].style
            }
            if area.maxX < size.width, cells[y * size.width + area.maxX].isContinuation {
                cells[y * size.width + area.maxX].style = cells[y * size.width + area.maxX - 1].style
            }
        }
    }

    /// Copies `other` into this buffer with its top-left corner at (x, y).
    public mutating func draw(_ other: CellBuffer, x: Int, y: Int) {
        for oy in 0..<other.height {
            for ox in 0..<other.width {
                let cell = other[x: ox, y: oy]
                if !cell.isContinuation {
                    put(cell, x: x + ox, y: y + oy)
                }
            }
        }
    }

    /// Makes ready to overwrite columns `from..<to` of row `y` (inside the
    /// buffer) with one-column cells, as ``put(_:x:y:)`` one by one would:
    /// only a wide character across either end has a half outside to blank;
    /// every cell inside is overwritten anyway.
    private mutating func overwriteRow(_ y: Int, from: Int, to: Int) {
        breakWideCharacter(at: from, y: y)
        breakWideCharacter(at: to - 1, y: y)
    }

    private mutating func breakWideCharacter(at x: Int, y: Int) {
        guard bounds.contains(x: x, y: y) else { return }
        let index = y * size.width + x
        let existing = cells[index]
        if existing.isContinuation, x > 0 {
            cells[index - 1] = .blank(cells[index - 1].style)
            cells[index] = .blank(existing.style)
        } else if existing.isWide, x + 1 < size.width {
            cells[index + 1] = .blank(cells[index + 1].style)
        }
    }

    // MARK: comparing

    /// The cells that differ from `previous`, row by row, left to right. When
    /// the sizes differ (or there is no previous buffer) every cell is
    /// returned. A changed continuation cell always comes with its wide cell,
    /// so a backend can skip continuations when drawing.
    public func diff(from previous: CellBuffer?) -> [CellChange] {
        guard let previous, previous.size == size else {
            var all: [CellChange] = []
            all.reserveCapacity(cells.count)
            for (index, cell) in cells.enumerated() {
                all.append(CellChange(x: index % max(1, size.width), y: index / max(1, size.width), cell: cell))
            }
            return all
        }
        var changes: [CellChange] = []
        for index in cells.indices where cells[index] != previous.cells[index] {
            let x = index % size.width
            let y = index / size.width
            if cells[index].isContinuation, x > 0 {
                let lead = CellChange(x: x - 1, y: y, cell: cells[index - 1])
                if changes.last != lead {
                    changes.append(lead)
                }
            }
            changes.append(CellChange(x: x, y: y, cell: cells[index]))
        }
        return changes
    }

    // MARK: text

    /// Each row as a string: wide characters appear once (they take two
    /// columns on screen), so each line is exactly `width` columns wide.
    public func lines() -> [String] {
        (0..<size.height).map(line)
    }

    /// Row `y` as a string of exactly `width` columns.
    public func line(_ y: Int) -> String {
        guard y >= 0, y < size.height else { return "" }
        var result = ""
        for x in 0..<size.width {
            result += cells[y * size.width + x].text
        }
        return result
    }

    /// All rows joined with newlines, by default without trailing spaces.
    public func render(trimmingTrailingSpaces: Bool = true) -> String {
        lines()
            .map { trimmingTrailingSpaces ? String($0.reversed().drop(while: { $0 == " " }).reversed()) : $0 }
            .joined(separator: "\n")
    }
}
