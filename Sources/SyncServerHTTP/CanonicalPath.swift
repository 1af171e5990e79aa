import SyncServerHost
import Foundation
import SyncCore

/// The first check of every request: its path in the one spelling the
/// server takes. Doubled or trailing slashes, encoded slashes and `.` or `..`
/// segments are refused with a 400 that says what is wrong.
enum CanonicalPath {
    /// The path's segments, percent-decoded, in the one spelling the server
    /// takes, and the path as the API sees it; any other spelling is a 400
    /// that says what is wrong. A path with nothing to decode is its own canonical form.
    static func parse(_ raw: String) throws(CloudError) -> (parts: [String], path: String) {
        if let parts = plainSegments(raw) { return (parts, raw) }
        return try decoding(raw)
    }

    /// The segments of a path with nothing to decode or refuse: ASCII, starting
    /// with '/', no '%' or '\\', no empty, `.` or `..` segment. `nil` for any
    /// other path (``decoding(_:)`` reads it, or says what is wrong).
    static func plainSegments(_ raw: String) -> [String]? {
        let slash = UInt8(ascii: "/")
        var previous = UInt8(0)
        for byte in raw.utf8 {
            // Not ASCII, something to decode, or an empty segment.
            guard byte < 0x80, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "\\"), byte != slash || previous != slash else { return nil }
            previous = byte
        }
        guard raw.utf8.first == slash, previous != slash else { return nil }
        let segments = TextChecks.pathSegments(raw)
        return segments.contains { $0 == "." || $0 == ".." } ? nil : segments
    }

    /// ``parse(_:)`` for a path that is not plain: each segment percent-decoded or refused.
    static func decoding(_ raw: String) throws(CloudError) -> (parts: [String], path: String) {
        let slash = UInt8(ascii: "/")
        let bytes = raw.utf8
        guard bytes.first == slash else {
            throw CloudError(.invalidArguments, "The path must start with '/'.")
        }
        guard bytes.count > 1 else {
            throw CloudError(.invalidArguments, "There is nothing at '/'; the API lives under /database/1/, /device/1/ and /admin/1/.")
        }
        var segments: [String] = []
        segments.reserveCapacity(8)
        var decodedAny = false
        var start = bytes.index(after: bytes.startIndex)
        while true {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            // '/' is ASCII: its positions are character boundaries of the string.
            let rawSegment = raw[start..<end]
            guard !rawSegment.isEmpty else {
                throw CloudError(.invalidArguments, "The path has an empty segment (a doubled or trailing '/'); write each path in its one form, such as /database/1/{container}/{environment}/{database}/{operation}.")
            }
            // Most segments hold no '%' or '\\' and are not dots: nothing to decode or refuse.
            let special = rawSegment.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "\\") }
            if !special, rawSegment != ".", rawSegment != ".." {
                segments.append(String(rawSegment))
            } else {
                decodedAny = true
                segments.append(try decodeSegment(rawSegment))
            }
            guard end != bytes.endIndex else { break }
            start = bytes.index(after: end)
        }
        return (segments, decodedAny ? "/" + segments.joined(separator: "/") : raw)
    }

    /// One path segment holding a '%', a '\\' or being a dot segment: percent-decoded, or refused.
    private static func decodeSegment(_ rawSegment: Substring) throws(CloudError) -> String {
        let lowered = rawSegment.lowercased()
        guard !lowered.contains("%2f"), !lowered.contains("%5c"), !rawSegment.contains("\\") else {
            throw CloudError(.invalidArguments, "The path holds an encoded slash ('%2F' or '%5C'); path segments may not contain slashes.")
        }
        guard let decoded = String(rawSegment).removingPercentEncoding else {
            throw CloudError(.invalidArguments, "The path holds a '%' that does not start a valid percent-encoded UTF-8 character.")
        }
        guard decoded != ".", decoded != ".." else {
            throw CloudError(.invalidArguments, "The path holds a '.' or '..' segment; write each path in its one form, without them.")
        }
        guard !decoded.contains("/") else {
            throw CloudError(.invalidArguments, "The path holds an encoded slash; path segments may not contain slashes.")
        }
        return decoded
    }
}
