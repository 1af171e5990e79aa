import SyncServerHost
import Foundation
import SyncCore

/// Signs the caller in: the token of `ckWebAuthToken=` (the query) or of
/// `Authorization: Bearer TOKEN` names a user or the server admin; neither is
/// an anonymous call (which only the public database takes); any other token
/// is a 401.
struct Authentication: Sendable {
    /// Whether a token is the server admin credential.
    let isAdminToken: @Sendable (String) -> Bool
    /// The user whose web auth token this is.
    let user: @Sendable (String) -> String?

    init(isAdminToken: @escaping @Sendable (String) -> Bool, user: @escaping @Sendable (String) -> String?) {
        self.isAdminToken = isAdminToken
        self.user = user
    }

    init(host: ServerHost) {
        self.init(isAdminToken: { host.isAdminToken($0) }, user: { host.user(withToken: $0) })
    }

    /// The caller of `ckWebAuthToken=` or `Authorization: Bearer`: a user,
    /// the server admin, or anonymous without either.
    func identify(queryToken: String?, authorization: String?) throws(CloudError) -> Identity {
        var token = queryToken
        if token == nil, let header = authorization {
            guard let bearer = Self.bearerToken(header) else {
                throw CloudError(.authenticationFailed, "The Authorization header must be 'Bearer TOKEN'.")
            }
            token = bearer
        }
        guard let token else { return .anonymous }
        if isAdminToken(token) { return .serverAdmin }
        guard let user = user(token) else {
            throw CloudError(
                .authenticationFailed,
                "This token is no user's web auth token and not the server admin token; syncscope serve prints both at start-up (also in users.json and admin.json in its data folder).")
        }
        return .user(user)
    }

    /// The token of an `Authorization: Bearer TOKEN` header (the scheme in
    /// any case, the token without the whitespace around it), or `nil` when
    /// the header is not of that form. An ASCII header is read byte by byte
    /// (``asciiBearerToken(_:)``); any other goes the general way (split into
    /// characters), with the same result.
    static func bearerToken(_ header: String) -> String? {
        switch asciiBearerToken(header) {
        case .token(let token): return token
        case .refused: return nil
        case .notASCII: break
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, isASCIICaseInsensitive(parts[0], "bearer") else { return nil }
        return trimmingWhitespace(parts[1])
    }

    enum ASCIIBearer: Equatable {
        case token(String)
        /// Not `Bearer TOKEN`.
        case refused
        /// Not ASCII (or holding a carriage return): read it by characters.
        case notASCII
    }

    /// ``bearerToken(_:)`` for an ASCII header, whose characters are its
    /// bytes: the first word after any leading spaces must be `bearer` in any
    /// case, followed by a space and something; the token is that something
    /// without the spaces and tabs around it (`CharacterSet.whitespaces` in ASCII).
    static func asciiBearerToken(_ header: String) -> ASCIIBearer {
        var header = header
        return header.withUTF8 { bytes -> ASCIIBearer in
            let space = UInt8(ascii: " ")
            let tab = UInt8(ascii: "\t")
            var schemeStart = -1
            var schemeEnd = -1
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x80, byte != UInt8(ascii: "\r") else { return .notASCII }
                if schemeEnd < 0 {
                    if byte == space {
                        if schemeStart >= 0 { schemeEnd = index }
                    } else if schemeStart < 0 {
                        schemeStart = index
                    }
                }
            }
            guard schemeStart >= 0, schemeEnd >= 0, schemeEnd + 1 < bytes.count, schemeEnd - schemeStart == 6 else { return .refused }
            for (offset, letter) in "bearer".utf8.enumerated() where bytes[schemeStart + offset] | 0x20 != letter {
                return .refused
            }
            var start = schemeEnd + 1
            var end = bytes.count
            while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
            while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
            return .token(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
    }

    /// Whether `text` is `lowercase` (ASCII letters) in any case.
    static func isASCIICaseInsensitive(_ text: Substring, _ lowercase: StaticString) -> Bool {
        let bytes = text.utf8
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, letter in byte == letter || byte | 0x20 == letter && (0x61...0x7A).contains(letter) }
        }
    }

    /// `text` without the whitespace around it (`CharacterSet.whitespaces`);
    /// a text starting and ending with a visible ASCII character is returned as it is.
    static func trimmingWhitespace(_ text: Substring) -> String {
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return String(text)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
