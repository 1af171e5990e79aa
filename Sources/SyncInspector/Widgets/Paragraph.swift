/// Wrapped text in an area, scrolled down by `scroll` lines.
public struct Paragraph: Sendable {
    public var text: String
    public var style: Style
    public var alignment: Alignment
    public var scroll: Int

    public init(_ text: String, style: Style = .plain, alignment: Alignment = .left, scroll: Int = 0) {
        self.text = text
        self.style = style
        self.alignment = alignment
        self.scroll = scroll
    }

    /// Number of lines the text takes when wrapped to `width`.
    public func lineCount(width: Int) -> Int {
        TextWrap.wrap(text, width: width).count
    }

    public func render(into buffer: inout CellBuffer, area: Rect) {
        let area = area.intersection(buffer.bounds)
        buffer.fill(area, style: style)
        guard !area.isEmpty else { return }
        let lines = TextWrap.wrap(text, width: area.width)
        let first = min(max(0, scroll), max(0, lines.count - 1))
        for (index, line) in lines.dropFirst(first).prefix(area.height).enumerated() {
            buffer.write(
                TextWidth.pad(line, to: area.width, alignment: alignment),
                x: area.x, y: area.y + index, style: style, clip: area)
        }
    }
}
