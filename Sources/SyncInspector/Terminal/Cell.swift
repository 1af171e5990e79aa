/// One terminal cell.
///
/// A wide character (CJK, most emoji) occupies two cells: the left one holds
/// the character with `width == 2`; the right one is a *continuation* cell
/// (`width == 0`, empty text) that must never be drawn on its own.
public struct Cell: Hashable, Sendable {
    /// One grapheme (extended grapheme cluster); empty for a continuation cell.
    public private(set) var text: String
    /// 1 for a normal character, 2 for the left half of a wide one, 0 for a continuation.
    public private(set) var width: Int
    public var style: Style

    /// A cell holding `character`. Characters that are not one or two columns
    /// wide (controls, lone combining marks) become a space.
    public init(_ character: Character, style: Style = .plain) {
        let w = TextWidth.of(character)
        if w == 1 || w == 2 {
            self.text = String(character)
            self.width = w
        } else {
            self.text = " "
            self.width = 1
        }
        self.style = style
    }

    private init(text: String, width: Int, style: Style) {
        self.text = text
        self.width = width
        self.style = style
    }

    /// A cell holding one printable ASCII character (`0x20...0x7E`), as
    /// `Cell(Character(...))` makes it, without reading Unicode properties.
    static func ascii(_ byte: UInt8, style: Style) -> Cell {
        Cell(text: String(Unicode.Scalar(byte)), width: 1, style: style)
    }

    /// A blank cell with the given style.
    public static func blank(_ style: Style = .plain) -> Cell {
        Cell(text: " ", width: 1, style: style)
    }

    /// The right half of a wide character.
    public static func continuation(_ style: Style = .plain) -> Cell {
        Cell(text: "", width: 0, style: style)
    }

    public var isContinuation: Bool { width == 0 }
    public var isWide: Bool { width == 2 }
}
