/// One labelled text field of a form. `cursor` counts characters
/// (grapheme clusters) from the start of `text`, 0...text.count.
public struct FormField: Hashable, Sendable {
    public var label: String
    public var text: String {
        didSet { cursor = min(max(0, cursor), text.count) }
    }
    public var cursor: Int
    /// An example shown while the field is empty, as a hint: dim, not bold,
    /// in brackets ("‹e.g. note-1›"), so it never looks like a value. It is
    /// never the field's value: an empty field submits as empty.
    public var placeholder: String

    public init(label: String, text: String = "", placeholder: String = "") {
        self.label = label
        self.text = text
        self.cursor = text.count
        self.placeholder = placeholder
    }
}
