/// A bordered box with a title. The focused panel has a double-line border
/// and a highlighted title, so focus is visible without colours too.
///
/// ```
/// ┌─ Records ──────┐    ╔═ Records ══════╗
/// │                │    ║                ║
/// └────────────────┘    ╚════════════════╝
/// ```
public struct Panel: Sendable {
    public var title: String
    public var focused: Bool
    public var theme: Theme

    public init(title: String = "", focused: Bool = false, theme: Theme = .monochrome) {
        self.title = title
        self.focused = focused
        self.theme = theme
    }

    struct BorderGlyphs {
        let topLeft: Character, topRight: Character, bottomLeft: Character, bottomRight: Character
        let horizontal: Character, vertical: Character

        static let single = BorderGlyphs(
            topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘", horizontal: "─", vertical: "│")
        static let double = BorderGlyphs(
            topLeft: "╔", topRight: "╗", bottomLeft: "╚", bottomRight: "╝", horizontal: "═", vertical: "║")
    }

    /// The area inside the border of a panel drawn in `area`.
    public static func inner(_ area: Rect) -> Rect { area.inset(by: 1) }

    /// Draws the panel (clearing its inside) and returns the inner area.
    @discardableResult
    public func render(into buffer: inout CellBuffer, area: Rect) -> Rect {
        let area = area.intersection(buffer.bounds)
        guard area.width >= 2, area.height >= 2 else {
            buffer.fill(area, style: theme.normal)
            return Rect(x: area.x, y: area.y, width: 0, height: 0)
        }
        let glyphs = focused ? BorderGlyphs.double : BorderGlyphs.single
        let style = focused ? theme.focusedBorder : theme.border
        let inner = Panel.inner(area)
        buffer.fill(inner, style: theme.normal)

        buffer.put(Cell(glyphs.topLeft, style: style), x: area.x, y: area.y)
        buffer.put(Cell(glyphs.topRight, style: style), x: area.maxX - 1, y: area.y)
        buffer.put(Cell(glyphs.bottomLeft, style: style), x: area.x, y: area.maxY - 1)
        buffer.put(Cell(glyphs.bottomRight, style: style), x: area.maxX - 1, y: area.maxY - 1)
        let horizontalRun = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: 1)
        buffer.fill(horizontalRun, character: glyphs.horizontal, style: style)
        buffer.fill(horizontalRun.row(0).offsetBy(dy: area.height - 1), character: glyphs.horizontal, style: style)
        for y in (area.y + 1)..<(area.maxY - 1) {
            buffer.put(Cell(glyphs.vertical, style: style), x: area.x, y: y)
            buffer.put(Cell(glyphs.vertical, style: style), x: area.maxX - 1, y: y)
        }

        // Title: "─ Title ─" starting one column after the corner.
        let room = area.width - 4  // corner, one rule, ..., corner (plus spaces around the title)
        if !title.isEmpty, room >= 3 {
            let text = " " + TextWidth.truncate(title, to: room - 2) + " "
            buffer.write(
                text, x: area.x + 2, y: area.y, style: focused ? theme.focusedTitle : theme.title,
                clip: Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: 1))
        }
        return inner
    }
}

extension Rect {
    /// This rectangle moved by (dx, dy).
    public func offsetBy(dx: Int = 0, dy: Int = 0) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width, height: height)
    }
}
