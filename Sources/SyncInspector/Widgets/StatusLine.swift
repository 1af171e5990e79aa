/// A one-line bar: text on the left, text on the right, the whole line in
/// the status style. When both do not fit, the right text wins and the left
/// one is cut with `…`.
public struct StatusLine: Sendable {
    public var left: String
    public var right: String
    public var style: Style

    public init(left: String, right: String = "", style: Style = Theme.monochrome.statusLine) {
        self.left = left
        self.right = right
        self.style = style
    }

    public func render(into buffer: inout CellBuffer, area: Rect) {
        let row = area.intersection(buffer.bounds).row(0)
        guard !row.isEmpty else { return }
        buffer.fill(row, style: style)
        let rightText = TextWidth.truncate(right, to: row.width)
        let rightWidth = TextWidth.of(rightText)
        buffer.write(rightText, x: row.maxX - rightWidth, y: row.y, style: style, clip: row)
        let leftRoom = row.width - rightWidth - (rightWidth > 0 ? 1 : 0)
        if leftRoom > 0 {
            buffer.write(TextWidth.truncate(left, to: leftRoom), x: row.x, y: row.y, style: style, clip: row)
        }
    }
}
