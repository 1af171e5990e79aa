import Foundation

/// Checks on names and paths that look at bytes first and take the general
/// (Unicode) way only for text that is not ASCII.
enum TextChecks {
    /// Whether `text` holds a control character (Unicode general category Cc).
    static func containsControlCharacter(_ text: String) -> Bool {
        var ascii = true
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F { return true }
            if byte >= 0x80 { ascii = false }
        }
        if ascii { return false }
        return text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `path.split(separator: "/")` (empty pieces left out), as strings: an
    /// ASCII path is cut at its '/' bytes, any other goes the general way (by characters).
    static func pathSegments(_ path: String) -> [String] {
        var bytesOfPath = path
        let segments = bytesOfPath.withUTF8 { bytes -> [String]? in
            var segments: [String] = []
            segments.reserveCapacity(8)
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                if byte >= 0x80 { return nil }
                if byte == UInt8(ascii: "/") {
                    if start != index { segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) }
                    start = index + 1
                }
            }
            if start != bytes.count { segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)) }
            return segments
        }
        return segments ?? path.split(separator: "/").map(String.init)
    }
}
