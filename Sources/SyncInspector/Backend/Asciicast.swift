import Foundation
import SyncCore

/// An asciinema v2 recording (`.cast`), written as it happens: a JSON
/// header line, then one JSON line per event, `[seconds, "o", text]` for
/// output and `[seconds, "r", "WxH"]` for a resize. Each line is written
/// at once, so a recording cut short (the program killed) is still valid
/// up to its last event.
public final class AsciicastWriter {
    public let path: String
    private let handle: FileHandle
    private var lastTime: Double = 0

    /// Creates (or replaces) the file and writes the header.
    /// - Parameters:
    ///   - timestamp: the recording's start, in seconds since 1970 (`nil`: left out,
    ///     for recordings that must be the same byte for byte).
    public init(path: String, width: Int, height: Int, title: String? = nil, timestamp: Int? = nil) throws(AsciicastError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw AsciicastError("Cannot create the recording \(path): check that its folder exists and can be written.")
        }
        self.handle = handle
        var header = "{\"version\": 2, \"width\": \(max(1, width)), \"height\": \(max(1, height))"
        if let timestamp { header += ", \"timestamp\": \(timestamp)" }
        if let title { header += ", \"title\": \(Self.jsonString(title))" }
        header += ", \"env\": {\"TERM\": \"xterm-256color\"}}"
        try write(header)
    }

    deinit {
        try? handle.close()
    }

    /// Text the terminal showed at `seconds` after the start (times never go backwards).
    public func output(_ text: String, at seconds: Double) throws(AsciicastError) {
        guard !text.isEmpty else { return }
        try event("o", text, at: seconds)
    }

    /// The terminal became `width` × `height` at `seconds`.
    public func resize(width: Int, height: Int, at seconds: Double) throws(AsciicastError) {
        try event("r", "\(width)x\(height)", at: seconds)
    }

    private func event(_ code: String, _ data: String, at seconds: Double) throws(AsciicastError) {
        let time = max(lastTime, seconds)
        lastTime = time
        try write("[\(Self.seconds(time)), \"\(code)\", \(Self.jsonString(data))]")
    }

    private func write(_ line: String) throws(AsciicastError) {
        do {
            try handle.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            throw AsciicastError("Cannot write the recording \(path): \(error.localizedDescription)")
        }
    }

    /// `1.5` → `1.500000`.
    static func seconds(_ value: Double) -> String {
        let micro = Int64((value * 1_000_000).rounded())
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// A JSON string literal (control characters as `\u00XX`).
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// A recording could not be written.
public struct AsciicastError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

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

/// Records what another backend shows as an asciinema v2 cast, with real
/// timings: each `draw` becomes one output event holding the ANSI text for
/// the cells that changed (the first frame, and the first after a resize or
/// a repaint, holds the whole screen). Keys pass through unrecorded.
public final class RecordingBackend<Base: TerminalBackend>: TerminalBackend {
    public let base: Base
    public let writer: AsciicastWriter
    private let clock: any SyncClock
    private let start: Milliseconds
    private var lastDrawn: CellBuffer?
    /// Frames recorded so far.
    public private(set) var frames = 0

    public init(base: Base, writer: AsciicastWriter, clock: any SyncClock = SystemClock()) {
        self.base = base
        self.writer = writer
        self.clock = clock
        start = clock.now()
    }

    public var size: Size { base.size }

    public func draw(_ buffer: CellBuffer) throws(TerminalError) {
        try base.draw(buffer)
        let seconds = Double(clock.now() - start) / 1000
        do {
            if let previous = lastDrawn, previous.size == buffer.size {
                try writer.output(ANSIText.changes(from: previous, to: buffer), at: seconds)
            } else {
                if let previous = lastDrawn, previous.size != buffer.size {
                    try writer.resize(width: buffer.size.width, height: buffer.size.height, at: seconds)
                }
                try writer.output(ANSIText.fullFrame(buffer), at: seconds)
            }
        } catch {
            throw TerminalError(.setupFailed, "\(error)")
        }
        lastDrawn = buffer
        frames += 1
    }

    public func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        try base.readKey(timeoutMs: timeoutMs)
    }

    public func readKey(timeoutMs: Int, wakingOn wake: WakePipe) throws(TerminalError) -> KeyEvent? {
        try base.readKey(timeoutMs: timeoutMs, wakingOn: wake)
    }

    public func invalidate() {
        base.invalidate()
        lastDrawn = nil
    }

    public func copyToClipboard(_ text: String) -> Clipboard.Outcome {
        base.copyToClipboard(text)
    }
}
