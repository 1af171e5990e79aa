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
