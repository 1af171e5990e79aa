/// The state of a modal form: fields, which one has focus, an optional
/// message (for example why the last submit was refused).
///
/// Keys: printable characters insert at the cursor; Backspace and Delete
/// remove; Left/Right/Home/End (and Ctrl-A/Ctrl-E) move the cursor;
/// Ctrl-U deletes before the cursor and Ctrl-K after it; Tab/Down and
/// Shift-Tab/Up move between fields (wrapping); Enter submits; Esc cancels.
public struct FormState: Hashable, Sendable {
    public var title: String
    public var fields: [FormField]
    public var focus: Int
    /// Shown under the fields; cleared when the text changes.
    public var message: String?

    public init(title: String, fields: [FormField], focus: Int = 0, message: String? = nil) {
        self.title = title
        self.fields = fields
        self.focus = fields.isEmpty ? 0 : min(max(0, focus), fields.count - 1)
        self.message = message
    }

    /// The text of every field, in order.
    public var values: [String] { fields.map(\.text) }

    /// The text of the first field labelled `label`.
    public func value(of label: String) -> String? {
        fields.first { $0.label == label }?.text
    }

    public mutating func handle(_ key: KeyEvent) -> FormOutcome {
        switch key {
        case .enter: return .submitted
        case .escape: return .cancelled
        case .tab, .down: return moveFocus(by: 1)
        case .backTab, .up: return moveFocus(by: -1)
        default: break
        }
        guard fields.indices.contains(focus) else { return .unhandled }
        var field = fields[focus]
        let before = field
        let characters = Array(field.text)
        field.cursor = min(max(0, field.cursor), characters.count)  // `cursor` may have been set from outside
        switch key {
        case .character(let character):
            guard TextWidth.of(character) > 0 else { return .unchanged }
            var updated = characters
            updated.insert(character, at: field.cursor)
            field.text = String(updated)
            // Inserting may merge with a neighbour into one grapheme (a
            // combining mark, a flag half): recount rather than add one.
            field.cursor = String(updated[..<(field.cursor + 1)]).count
        case .backspace:
            guard field.cursor > 0 else { return .unchanged }
            var updated = characters
            updated.remove(at: field.cursor - 1)
            let newCursor = field.cursor - 1
            field.text = String(updated)
            field.cursor = newCursor
        case .delete, .control("d"):
            guard field.cursor < characters.count else { return .unchanged }
            var updated = characters
            updated.remove(at: field.cursor)
            let keep = field.cursor
            field.text = String(updated)
            field.cursor = keep
        case .left: field.cursor = max(0, field.cursor - 1)
        case .right: field.cursor = min(characters.count, field.cursor + 1)
        case .home, .control("a"): field.cursor = 0
        case .end, .control("e"): field.cursor = characters.count
        case .control("u"):
            field.text = String(characters[field.cursor...])
            field.cursor = 0
        case .control("k"):
            let keep = field.cursor
            field.text = String(characters[..<field.cursor])
            field.cursor = keep
        default:
            return .unhandled
        }
        guard field != before else { return .unchanged }
        if field.text != before.text { message = nil }
        fields[focus] = field
        return .changed
    }

    private mutating func moveFocus(by delta: Int) -> FormOutcome {
        guard fields.count > 1 else { return .unchanged }
        focus = ((focus + delta) % fields.count + fields.count) % fields.count
        return .changed
    }
}
