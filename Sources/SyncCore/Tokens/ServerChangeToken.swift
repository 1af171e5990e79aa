/// An opaque token that stands for a point in a database's or a zone's
/// history, as `CKServerChangeToken` does.
///
/// Clients never create or read tokens: they cache each one they receive —
/// database tokens and zone tokens apart, since the two kinds are not
/// interchangeable — and pass it back with their next fetch. The text is
/// URL-safe and signed by the server, so an edited token is rejected.
public struct ServerChangeToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The token's text, exactly as the server issued it.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A few characters that tell tokens apart on screen and in transcripts.
    /// They come from the signature, so equal tokens have equal short forms.
    public var shortForm: String {
        String(rawValue.suffix(7))
    }

    public var description: String { "token …\(shortForm)" }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
