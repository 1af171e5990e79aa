/// Draws a ``FormState`` as a modal box centred on the screen.
///
/// ```
/// ╔═ New zone ═══════════════════════════╗
/// ║                                      ║
/// ║ Name  my-zone                        ║
/// ║ Owner                                ║
/// ║                                      ║
/// ║ Enter submit · Tab next · Esc cancel ║
/// ╚══════════════════════════════════════╝
/// ```
/// Fields are drawn in the field style (underlined in monochrome); the
/// cursor is a reverse-video cell in the focused field.
public struct FormView: Sendable {
    public var theme: Theme
    public var hint: String
    /// The narrowest the text of a field may be.
    public var minimumFieldWidth: Int

    public init(
        theme: Theme = .monochrome, hint: String = "Enter submit · Tab next · Esc cancel",
        minimumFieldWidth: Int = 24
    ) {
        self.theme = theme
        self.hint = hint
        self.minimumFieldWidth = minimumFieldWidth
    }

    /// Where the box goes on `screen`.
    public func frame(for state: FormState, in screen: Rect) -> Rect {
        let labelWidth = state.fields.map { TextWidth.of($0.label) }.max() ?? 0
        let contentWidth = max(
            labelWidth + 1 + minimumFieldWidth,
            TextWidth.of(hint),
            TextWidth.of(state.title) + 4,
            state.fields.map { labelWidth + 1 + TextWidth.of($0.text) + 1 }.max() ?? 0)
        let height = 2 + 1 + state.fields.count + 1 + (state.message == nil ? 0 : 1) + 1
        return screen.centered(width: contentWidth + 4, height: height)
    }

    public func render(_ state: FormState, into buffer: inout CellBuffer, screen: Rect) {
        let box = frame(for: state, in: screen.intersection(buffer.bounds))
        let inner = Panel(title: state.title, focused: true, theme: theme).render(into: &buffer, area: box)
        let content = inner.inset(left: 1, right: 1)
        guard !content.isEmpty else { return }
        let labelWidth = state.fields.map { TextWidth.of($0.label) }.max() ?? 0
        var y = content.y + 1
        for (index, field) in state.fields.enumerated() where y < content.maxY {
            buffer.write(
                TextWidth.pad(field.label, to: labelWidth), x: content.x, y: y, style: theme.formLabel, clip: content)
            let fieldArea = Rect(x: content.x + labelWidth + 1, y: y, width: content.width - labelWidth - 1, height: 1)
                .intersection(content)
            drawField(field, focused: index == state.focus, into: &buffer, area: fieldArea)
            y += 1
        }
        y += 1
        if let message = state.message, y < content.maxY {
            buffer.write(TextWidth.truncate(message, to: content.width), x: content.x, y: y, style: theme.error, clip: content)
            y += 1
        }
        if y < content.maxY {
            buffer.write(TextWidth.truncate(hint, to: content.width), x: content.x, y: y, style: theme.muted, clip: content)
        }
    }

    /// "‹e.g. note-1›": how a placeholder reads on screen.
    public static func hint(for placeholder: String) -> String {
        placeholder.hasPrefix("e.g.") ? "‹\(placeholder)›" : "‹e.g. \(placeholder)›"
    }

    /// The field's colours, dim and never bold (bold and dim cancel out on
    /// many terminals, which made hints look typed).
    func placeholderStyle(in field: Style) -> Style {
        var style = field
        style.attributes.remove(.bold)
        style.attributes.formUnion(theme.muted.attributes)
        return style
    }

    private func drawField(_ field: FormField, focused: Bool, into buffer: inout CellBuffer, area: Rect) {
        guard !area.isEmpty else { return }
        let style = focused ? theme.focusedFormField : theme.formField
        buffer.fill(area, style: style)
        let characters = Array(field.text)
        if characters.isEmpty && !field.placeholder.isEmpty {
            // After the cursor cell, so the cursor sits on an empty cell, not on the hint.
            let hint = Rect(x: area.x + 1, y: area.y, width: area.width - 1, height: 1)
            buffer.write(
                TextWidth.truncate(Self.hint(for: field.placeholder), to: hint.width), x: hint.x, y: hint.y,
                style: placeholderStyle(in: style), clip: hint)
        }
        let widths = characters.map { max(1, TextWidth.of($0)) }
        let cursor = min(max(0, field.cursor), characters.count)
        // Scroll horizontally so the cursor cell is visible.
        let cursorWidth = cursor < characters.count ? widths[cursor] : 1
        var start = 0
        if focused {
            var span = widths[..<cursor].reduce(0, +) + cursorWidth
            while span > area.width && start < cursor {
                span -= widths[start]
                start += 1
            }
        }
        var x = area.x
        var cursorX: Int?
        for index in start..<characters.count {
            if index == cursor { cursorX = x }
            if x + widths[index] > area.maxX { break }
            buffer.write(String(characters[index]), x: x, y: area.y, style: style, clip: area)
            x += widths[index]
        }
        if cursor == characters.count { cursorX = x }
        if focused, let cursorX, cursorX < area.maxX {
            buffer.updateStyle(in: Rect(x: cursorX, y: area.y, width: min(cursorWidth, area.maxX - cursorX), height: 1)) {
                $0 = theme.cursor
            }
        }
    }
}
