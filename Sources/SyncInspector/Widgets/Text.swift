/// Word wrapping by display width.
public enum TextWrap {
    /// Splits `text` into lines of at most `width` columns. Newlines start a
    /// new line; words are kept whole when they fit on a line, and longer
    /// words are broken between characters (never inside a wide character).
    /// Runs of spaces between words collapse to one.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            var currentWidth = 0
            let words = paragraph
                .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                .map { String($0.filter { TextWidth.of($0) > 0 }) }
                .filter { !$0.isEmpty }
            for word in words {
                let wordWidth = TextWidth.of(word)
                if currentWidth > 0 && currentWidth + 1 + wordWidth <= width {
                    current += " " + word
                    currentWidth += 1 + wordWidth
                    continue
                }
                if currentWidth > 0 {
                    lines.append(current)
                    current = ""
                    currentWidth = 0
                }
                if wordWidth <= width {
                    current = word
                    currentWidth = wordWidth
                    continue
                }
                // Break a long word.
                for character in word {
                    let w = TextWidth.of(character)
                    if currentWidth > 0 && currentWidth + w > width {
                        lines.append(current)
                        current = ""
                        currentWidth = 0
                    }
                    current.append(character)
                    currentWidth += w
                }
            }
            lines.append(current)
        }
        return lines
    }
}

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
