import HTTPTypes

/// The request headers the API reads, gathered in one pass over the fields.
///
/// `HTTPFields`' subscript by name scans every field and joins what it finds;
/// reading five headers that way is five scans. Here a field is matched by its
/// canonical (lower-case) name, so a header's spelling does not matter, and a
/// header sent more than once reads as its values joined with `", "`, exactly
/// as the subscript gives it.
struct RequestHeaders: Equatable {
    /// `X-SyncScope-Device`.
    var device: String?
    var authorization: String?
    var contentType: String?
    var contentLength: String?
    var transferEncoding: String?

    init(device: String? = nil, authorization: String? = nil, contentType: String? = nil, contentLength: String? = nil, transferEncoding: String? = nil) {
        self.device = device
        self.authorization = authorization
        self.contentType = contentType
        self.contentLength = contentLength
        self.transferEncoding = transferEncoding
    }

    init(_ fields: HTTPFields) {
        for field in fields {
            let name = field.name.canonicalName
            switch name.utf8.count {
            case 12 where name == "content-type": Self.add(field.value, to: &contentType)
            case 13 where name == "authorization": Self.add(field.value, to: &authorization)
            case 14 where name == "content-length": Self.add(field.value, to: &contentLength)
            case 17 where name == "transfer-encoding": Self.add(field.value, to: &transferEncoding)
            case 18 where name == "x-syncscope-device": Self.add(field.value, to: &device)
            default: break
            }
        }
    }

    private static func add(_ value: String, to slot: inout String?) {
        if let earlier = slot {
            slot = earlier + ", " + value
        } else {
            slot = value
        }
    }
}

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
