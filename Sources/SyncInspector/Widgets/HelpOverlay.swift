/// A centred box listing key bindings, drawn over the screen.
///
/// When the list is taller than the screen, the last line that fits says
/// how many more bindings there are.
public struct HelpOverlay: Sendable {
    public var title: String
    public var sections: [HelpSection]
    public var footer: String
    public var theme: Theme

    public init(
        title: String = "Keys", sections: [HelpSection], footer: String = "? or Esc closes this help",
        theme: Theme = .monochrome
    ) {
        self.title = title
        self.sections = sections
        self.footer = footer
        self.theme = theme
    }

    private enum Line {
        case heading(String)
        case entry(HelpEntry)
        case blank
        case footer
    }

    private var lines: [Line] {
        var result: [Line] = []
        for section in sections {
            if !result.isEmpty { result.append(.blank) }
            if !section.title.isEmpty { result.append(.heading(section.title)) }
            result += section.entries.map(Line.entry)
        }
        if !footer.isEmpty {
            result.append(.blank)
            result.append(.footer)
        }
        return result
    }

    public func render(into buffer: inout CellBuffer, screen: Rect) {
        let screen = screen.intersection(buffer.bounds)
        let entries = sections.flatMap(\.entries)
        let keysWidth = entries.map { TextWidth.of($0.keys) }.max() ?? 0
        let descriptionWidth = entries.map { TextWidth.of($0.description) }.max() ?? 0
        let contentWidth = max(
            keysWidth + 2 + descriptionWidth,
            TextWidth.of(footer),
            TextWidth.of(title) + 4,
            sections.map { TextWidth.of($0.title) }.max() ?? 0)
        let lines = self.lines
        let box = screen.centered(width: contentWidth + 4, height: lines.count + 2)
        let inner = Panel(title: title, focused: true, theme: theme).render(into: &buffer, area: box)
        let content = inner.inset(left: 1, right: 1)
        guard !content.isEmpty else { return }

        let fits = lines.count <= content.height
        let shown = fits ? lines.count : max(0, content.height - 1)
        for (index, line) in lines.prefix(shown).enumerated() {
            let y = content.y + index
            switch line {
            case .heading(let text):
                buffer.write(TextWidth.truncate(text, to: content.width), x: content.x, y: y, style: theme.title, clip: content)
            case .entry(let entry):
                let keyColumn = min(keysWidth, content.width)
                buffer.write(
                    TextWidth.truncate(entry.keys, to: keyColumn), x: content.x, y: y, style: theme.helpKey, clip: content)
                let descriptionX = content.x + keyColumn + 2
                buffer.write(
                    TextWidth.truncate(entry.description, to: content.maxX - descriptionX),
                    x: descriptionX, y: y, style: theme.normal, clip: content)
            case .blank:
                break
            case .footer:
                buffer.write(TextWidth.truncate(footer, to: content.width), x: content.x, y: y, style: theme.muted, clip: content)
            }
        }
        if !fits, content.height > 0 {
            let hidden = lines.dropFirst(shown).filter { if case .entry = $0 { true } else { false } }.count
            let more = hidden > 0 ? "… \(hidden) more" : "…"
            buffer.write(
                TextWidth.truncate(more, to: content.width), x: content.x, y: content.maxY - 1, style: theme.muted,
                clip: content)
        }
    }
}
