import Foundation
import SyncCore

/// One JSON object written key by key (the keys given in sorted order); absent values are left out, as `JSONEncoder` leaves out `nil`s.
struct JSONObjectWriter {
    var out: [UInt8]
    var first = true

    init(out: [UInt8]) {
        self.out = out
        self.out.append(UInt8(ascii: "{"))
    }

    mutating func key(_ name: StaticString) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: "\":".utf8)
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.writeString(value, into: &out)
    }

    mutating func strings(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            Self.writeString(value, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    mutating func bool(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func integer(_ name: StaticString, _ value: Int64?, unsigned: UInt64? = nil) {
        guard let value else { return }
        key(name)
        out.append(contentsOf: (unsigned.map { String($0) } ?? String(value)).utf8)
    }

    mutating func double(_ name: StaticString, _ value: Double?) throws {
        guard let value else { return }
        key(name)
        guard value.isFinite else {
            throw CloudError(.internalError, "The response could not be written as JSON: \(name) is \(value).")
        }
        // As `JSONEncoder` writes a double: its shortest form, without a ".0" on a whole number.
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }

    mutating func raw(_ name: StaticString, _ bytes: Data?, else value: JSONValue?) throws {
        if let bytes {
            key(name)
            // Copied whole: a page holds up to a thousand bodies, and appending them as a sequence took a quarter of its writing.
            bytes.withUnsafeBytes { out.append(contentsOf: $0) }
        } else if let value {
            key(name)
            out.append(contentsOf: try WireJSON.encode(value))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string as `JSONEncoder` writes it: `"` and `\\` escaped, control
    /// characters as `\\b`, `\\f`, `\\n`, `\\r`, `\\t` or `\\u00xx`, the rest (slashes too) as they are.
    static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (paths, names, tokens) need no escape: copied whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: value.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Self.hexDigits
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    mutating func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }
}
