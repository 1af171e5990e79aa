import Foundation
import SyncCore

/// Cell changes as the ANSI text a terminal would have received for them:
/// cursor moves, SGR attributes and colours, characters.
public enum ANSIText {
    static let escape = "\u{1B}["

    /// The whole screen, from blank.
    public static func fullFrame(_ buffer: CellBuffer) -> String {
        escape + "?25l" + escape + "0m" + escape + "2J" + escape + "H" + changes(buffer.diff(from: nil))
    }

    /// Only what changed since `previous`.
    public static func changes(from previous: CellBuffer, to buffer: CellBuffer) -> String {
        changes(buffer.diff(from: previous))
    }

    static func changes(_ changes: [CellChange]) -> String {
        var out = ""
        var cursor: (x: Int, y: Int)?
        var style: Style?
        for change in changes where !change.cell.isContinuation {
            if cursor.map({ $0.x != change.x || $0.y != change.y }) ?? true {
                out += escape + "\(change.y + 1);\(change.x + 1)H"
            }
            if style != change.cell.style {
                out += sgr(change.cell.style)
                style = change.cell.style
            }
            out += change.cell.text
            cursor = (change.x + max(1, change.cell.width), change.y)
        }
        if style != nil { out += escape + "0m" }
        return out
    }

    /// `ESC[0;1;7;31m`: reset, then the style's attributes and colours.
    static func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.attributes.contains(.bold) { codes.append("1") }
        if style.attributes.contains(.dim) { codes.append("2") }
        if style.attributes.contains(.underline) { codes.append("4") }
        if style.attributes.contains(.reverse) { codes.append("7") }
        if let fg = colorIndex(style.foreground) { codes.append(String(30 + fg)) }
        if let bg = colorIndex(style.background) { codes.append(String(40 + bg)) }
        return escape + codes.joined(separator: ";") + "m"
    }

    private static func colorIndex(_ color: Color) -> Int? {
        switch color {
        case .default: nil
        case .black: 0
        case .red: 1
        case .green: 2
        case .yellow: 3
        case .blue: 4
        case .magenta: 5
        case .cyan: 6
        case .white: 7
        }
    }
}
