/// A key press (or a terminal resize), independent of the terminal library.
///
/// Vim-style keys (`j`, `k`, ...) arrive as `.character`; mapping them to
/// movements is the application's job.
public enum KeyEvent: Hashable, Sendable, CustomStringConvertible {
    /// A printable character, possibly non-ASCII (UTF-8 input is decoded).
    case character(Character)
    /// Ctrl plus a letter, lower-case: `.control("a")` is Ctrl-A. Ctrl-C is
    /// `.control("c")` (see ``KeyEvent/ctrlC``).
    case control(Character)
    case up
    case down
    case left
    case right
    case enter
    case escape
    case tab
    /// Shift-Tab.
    case backTab
    case backspace
    case delete
    case insert
    case pageUp
    case pageDown
    case home
    case end
    /// F1...F12 (and beyond).
    case function(Int)
    /// The terminal changed size; ask the backend for the new size.
    case resize
    /// A key code the backend could not name.
    case unknown(Int)
    /// A mouse click or wheel turn at a cell (terminals that report the mouse).
    case mouse(MouseEvent)

    public static let ctrlC = KeyEvent.control("c")

    /// Decodes a character code as delivered by a terminal in raw or cbreak
    /// mode: control bytes become named keys or `.control`, others `.character`.
    public static func fromCharacterCode(_ code: UInt32) -> KeyEvent {
        switch code {
        case 0x09: return .tab
        case 0x0A, 0x0D: return .enter
        case 0x1B: return .escape
        case 0x08, 0x7F: return .backspace
        case 0x01...0x1A:
            let letter = Character(Unicode.Scalar(UInt8(0x60 + code)))
            return .control(letter)
        default:
            guard let scalar = Unicode.Scalar(code), TextWidth.of(scalar) > 0 else { return .unknown(Int(code)) }
            return .character(Character(scalar))
        }
    }

    public var description: String {
        switch self {
        case .character(let c): "\(c)"
        case .control(let c): "Ctrl-\(c.uppercased())"
        case .up: "Up"
        case .down: "Down"
        case .left: "Left"
        case .right: "Right"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .insert: "Insert"
        case .pageUp: "PageUp"
        case .pageDown: "PageDown"
        case .home: "Home"
        case .end: "End"
        case .function(let n): "F\(n)"
        case .resize: "Resize"
        case .unknown(let code): "Key(\(code))"
        case .mouse(let mouse): "\(mouse)"
        }
    }
}

/// What the mouse did, and where (0-based cell coordinates, as the screen's ``CellBuffer``).
public struct MouseEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Action: Hashable, Sendable {
        /// The left button was pressed (or clicked).
        case press
        /// The wheel turned up (away from the person): scroll towards the top.
        case wheelUp
        /// The wheel turned down: scroll towards the bottom.
        case wheelDown
    }

    public var action: Action
    public var x: Int
    public var y: Int

    public init(_ action: Action, x: Int, y: Int) {
        self.action = action
        self.x = x
        self.y = y
    }

    public var description: String {
        let what = switch action {
        case .press: "Click"
        case .wheelUp: "WheelUp"
        case .wheelDown: "WheelDown"
        }
        return "\(what)(\(x),\(y))"
    }
}
