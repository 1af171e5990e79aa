import Foundation

/// What a request signed with a server-to-server key carries, as Apple
/// documents it: the key's ID, the date, and an ECDSA P-256 (SHA-256)
/// signature, base64 of its DER form, of `date:base64(sha256(body)):subpath`,
/// where the subpath is the URL's path (from `/database/1/…`, no query).
public enum WireRequestSignature {
    public static let keyIDHeader = "X-Apple-CloudKit-Request-KeyID"
    public static let dateHeader = "X-Apple-CloudKit-Request-ISO8601Date"
    public static let signatureHeader = "X-Apple-CloudKit-Request-SignatureV1"

    /// The signed message: the date as sent, the body's SHA-256 in base64, and the subpath.
    public static func message(date: String, bodySHA256: some Sequence<UInt8>, subpath: String) -> Data {
        Data("\(date):\(Data(bodySHA256).base64EncodedString()):\(subpath)".utf8)
    }

    /// A date as Apple's examples write it: ISO 8601 in UTC, to the second (`2026-01-25T22:15:43Z`).
    public static func dateText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    /// A signed date: ISO 8601 with a time zone, with or without fractional seconds.
    public static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
