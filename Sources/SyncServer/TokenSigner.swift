import Crypto
import Foundation
import SyncCore

/// Signs and verifies change tokens with HMAC-SHA256.
struct TokenSigner {
    private static let macLength = 12
    private let key: SymmetricKey

    init(keyBytes: [UInt8]) {
        key = SymmetricKey(data: keyBytes)
    }

    func sign(_ payload: TokenPayload) -> ServerChangeToken {
        var bytes: [UInt8] = [TokenPayload.version, payload.kind.rawValue, Self.scopeCode(payload.scope)]
        bytes.reserveCapacity(64)
        Self.appendVarint(UInt64(bitPattern: payload.sequence), to: &bytes)
        Self.appendVarint(UInt64(bitPattern: payload.sequence &- payload.floor), to: &bytes)
        Self.appendVarint(payload.history, to: &bytes)
        bytes.append(payload.environment == .production ? 1 : 0)
        for string in [payload.user, payload.container, payload.zoneName, payload.zoneOwner] {
            let utf8 = Array(string.utf8)
            Self.appendVarint(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: key)
        bytes.append(contentsOf: mac.prefix(Self.macLength))
        return ServerChangeToken(rawValue: Self.base64URL(bytes))
    }

    func verify(_ token: ServerChangeToken) throws(TokenDecodingError) -> TokenPayload {
        let text = token.rawValue
        guard !text.isEmpty else { throw .empty }
        // A cut can leave one dangling character, which base64 cannot decode on its own.
        let dangling = text.utf8.count % 4 == 1
        let complete = dangling ? String(text.dropLast()) : text
        guard let bytes = Self.decodeBase64URL(complete), bytes.first == TokenPayload.version else { throw .notAToken }
        // The server writes one spelling per byte string: any other (say, a
        // changed last character whose low bits base64 ignores) is not its token.
        if !dangling, bytes.count > Self.macLength, Self.base64URL(bytes) == complete {
            let body = Array(bytes.dropLast(Self.macLength))
            let mac = Array(bytes.suffix(Self.macLength))
            let expected = Array(HMAC<SHA256>.authenticationCode(for: body, using: key).prefix(Self.macLength))
            if Self.constantTimeEquals(mac, expected) {
                var reader = ByteReader(bytes: body, offset: 0)
                guard let payload = try? Self.parse(&reader), reader.isAtEnd else { throw .malformed }
                return payload
            }
        }
        throw Self.diagnose(bytes)
    }

    /// Tells a token that was cut short from one that was edited, by reading
    /// the unauthenticated bytes as a token body (only to word the error).
    private static func diagnose(_ bytes: [UInt8]) -> TokenDecodingError {
        var reader = ByteReader(bytes: bytes, offset: 0)
        do {
            _ = try parse(&reader)
        } catch .truncated {
            return .truncated
        } catch {
            return .badSignature
        }
        return bytes.count - reader.offset < macLength ? .truncated : .badSignature
    }

    private static func parse(_ reader: inout ByteReader) throws(TokenDecodingError) -> TokenPayload {
        guard try reader.byte() == TokenPayload.version,
              let kind = ChangeTokenKind(rawValue: try reader.byte()),
              let scope = scope(try reader.byte())
        else { throw .malformed }
        let sequence = Int64(bitPattern: try reader.varint())
        let back = Int64(bitPattern: try reader.varint())
        let history = try reader.varint()
        let environment: ContainerEnvironment = try reader.byte() == 1 ? .production : .development
        let user = try reader.string()
        let container = try reader.string()
        let zoneName = try reader.string()
        let zoneOwner = try reader.string()
        return TokenPayload(
            kind: kind, scope: scope, sequence: sequence, floor: sequence &- back, history: history,
            user: user, container: container, environment: environment, zoneName: zoneName, zoneOwner: zoneOwner
        )
    }

    // MARK: Encoding helpers

    private static func scopeCode(_ scope: DatabaseScope) -> UInt8 {
        switch scope {
        case .public: 0
        case .private: 1
        case .shared: 2
        }
    }

    private static func scope(_ code: UInt8) -> DatabaseScope? {
        switch code {
        case 0: .public
        case 1: .private
        case 2: .shared
        default: nil
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A secret derived from the signing key: HMAC-SHA256 of `label`, a zero
    /// byte and `message`. A token's signed bytes start with its version byte,
    /// never with a label's letters, so a derived secret is never a token's MAC.
    func derivedSecret(_ label: String, _ message: String) -> [UInt8] {
        var bytes = Array(label.utf8)
        bytes.append(0)
        bytes.append(contentsOf: message.utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: bytes, using: key))
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    // (The character swaps work on bytes: `replacingOccurrences` goes
    // through NSString, and every token read or written passes here.)

    static func base64URL(_ bytes: [UInt8]) -> String {
        var utf8 = Array(Data(bytes).base64EncodedString().utf8)
        utf8.removeAll { $0 == UInt8(ascii: "=") }
        for i in utf8.indices {
            if utf8[i] == UInt8(ascii: "+") { utf8[i] = UInt8(ascii: "-") } else if utf8[i] == UInt8(ascii: "/") { utf8[i] = UInt8(ascii: "_") }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    static func decodeBase64URL(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 < 128 }) else { return nil }
        var base64 = Array(text.utf8)
        for i in base64.indices {
            if base64[i] == UInt8(ascii: "-") { base64[i] = UInt8(ascii: "+") } else if base64[i] == UInt8(ascii: "_") { base64[i] = UInt8(ascii: "/") }
        }
        let padding = UInt8(ascii: "=")
        guard !base64.contains(padding) || base64.last == padding else { return nil }
        while base64.count % 4 != 0 { base64.append(padding) }
        guard let data = Data(base64Encoded: Data(base64)) else { return nil }
        return Array(data)
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(TokenDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(TokenDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64 else { throw .malformed }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func string() throws(TokenDecodingError) -> String {
        guard let length = Int(exactly: try varint()) else { throw .malformed }
        guard length <= bytes.count - offset else { throw .truncated }
        defer { offset += length }
        guard let s = String(validating: bytes[offset..<(offset + length)], as: UTF8.self) else { throw .malformed }
        return s
    }
}
