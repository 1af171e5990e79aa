import Foundation
import SyncCore

/// A strict RFC 8259 parser from UTF-8 bytes to ``JSONNode``.
///
/// One pass, no backtracking, no exceptions as control flow. It refuses what
/// JSON does not allow (trailing commas, single quotes, control characters in
/// strings, invalid UTF-8, lone surrogates, leading zeros, text after the
/// value), and it stops at
/// ``maximumDepth`` levels of nesting so that a hostile body cannot exhaust the
/// stack.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONNode {
        let result: Result<JSONNode, JSONSyntaxError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            return Result { () throws(JSONSyntaxError) in try parser.document() }
        }
        return try result.get()
    }

    private mutating func document() throws(JSONSyntaxError) -> JSONNode {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }  // a UTF-8 byte order mark
        skipWhitespace()
        guard index < bytes.count else { throw failure(bytes.isEmpty ? "the text is empty" : "there is no value") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected \(describeByte(bytes[index])) after the value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else { throw failure("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw failure("unexpected \(describeByte(byte)) where a value should be")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONNode {
        try enterNesting()
        index += 1  // {
        var object: [String: JSONNode] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw failure(index < bytes.count ? "expected a key in double quotes" : "the text ends inside an object")
            }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':' after the key \"\(key)\"") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(object)
            case nil:
                throw failure("the text ends inside an object")
            default:
                throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONNode {
        try enterNesting()
        index += 1  // [
        var items: [JSONNode] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(items)
            case nil:
                throw failure("the text ends inside a list")
            default:
                throw failure("expected ',' or ']' in a list")
            }
        }
    }

    private mutating func enterNesting() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw failure("the value is nested more than \(Self.maximumDepth) levels deep")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        let start = index
        let matches = start + count <= bytes.count && word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { throw failure("unexpected \(describeByte(bytes[index])) where a value should be") }
        index += count
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1  // "
        let contentStart = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try makeString(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), at: contentStart)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character (\(describeByte(byte))) inside a string must be escaped") }
            index += 1
        }
        guard index < bytes.count else { throw failure("a string is not closed", at: start) }
        // Slow path: escapes.
        var scalars = [UInt8](UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text = try scalars.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try makeString(buffer, at: contentStart) }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw failure("'\\\(describeByte(escape, quoted: false))' is not a JSON escape", at: index - 2)
                }
            default:
                if byte < 0x20 { throw failure("a control character (\(describeByte(byte))) inside a string must be escaped") }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("a string is not closed", at: start)
    }

    /// After `\u`: four hex digits, and a second escape for a surrogate pair.
    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let escapeStart = index - 2
        let first = try hexQuad()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("'\\u\(String(first, radix: 16, uppercase: true))' is half of a surrogate pair without its other half", at: escapeStart)
            }
            index += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw failure("'\\u\(String(first, radix: 16, uppercase: true))' is not followed by a low surrogate", at: escapeStart)
            }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(value)!
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw failure("'\\u\(String(first, radix: 16, uppercase: true))' is half of a surrogate pair without its other half", at: escapeStart)
        }
        return scalar
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("'\\u' needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("'\\u' needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func makeString(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONSyntaxError) -> String {
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw failure("a string is not valid UTF-8", at: offset)
        }
        return text
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard let first = peek(), isDigit(first) else { throw failure("'-' must be followed by a digit", at: start) }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw failure("a number cannot start with 0 (leading zeros are not JSON)", at: start) }
        } else {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw failure("a '.' in a number must be followed by a digit", at: start) }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw failure("an exponent in a number needs digits", at: start) }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        let digits = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger {
            if let value = Self.integer(digits, negative: negative) { return value }
        }
        let text = String(decoding: digits, as: UTF8.self)
        guard !isInteger, let value = Double(text), value.isFinite else {
            return .outOfRange(text)
        }
        // A whole number written with a fraction or exponent (3.0, 1e3) is still an integer.
        if value == value.rounded(.towardZero), let exact = Int64(exactly: value) { return .integer(exact) }
        return .double(value)
    }

    /// Digits (after an optional '-') as `Int64`, else `UInt64`; `nil` when neither holds them.
    private static func integer(_ digits: UnsafeBufferPointer<UInt8>, negative: Bool) -> JSONNode? {
        var magnitude: UInt64 = 0
        for byte in digits where byte != UInt8(ascii: "-") {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
            return nil
        }
        if magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
        return .unsigned(magnitude)
    }

    // MARK: Helpers

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func describeByte(_ byte: UInt8, quoted: Bool = true) -> String {
        if byte >= 0x21 && byte < 0x7F {
            let character = String(UnicodeScalar(byte))
            return quoted ? "'\(character)'" : character
        }
        return String(format: "byte 0x%02X", byte)
    }

    private func failure(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let position = min(offset ?? index, bytes.count)
        var line = 1
        var column = 1
        for i in 0..<position {
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(message: message, line: line, column: column)
    }
}
