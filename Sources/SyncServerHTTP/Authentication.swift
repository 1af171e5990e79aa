import Crypto
import SyncServerHost
import Foundation
import SyncCore
import SyncWire

/// Signs the caller in: the token of `ckWebAuthToken=` (the query) or of
/// `Authorization: Bearer TOKEN` names a user or the server admin; neither is
/// an anonymous call (which only the public database takes); any other token
/// is a 401. A request signed with a server-to-server key
/// (``identifySigned(_:body:subpath:parts:now:)``) acts as the key's user, in
/// the public database only.
struct Authentication: Sendable {
    /// Whether a token is the server admin credential.
    let isAdminToken: @Sendable (String) -> Bool
    /// The user whose web auth token this is.
    let user: @Sendable (String) -> String?
    /// The server-to-server keys taken.
    let serverKeys: ServerKeyRing
    /// Whether a user of this name exists (for ``reading(as:caller:route:)``).
    let isUser: @Sendable (String) -> Bool

    init(
        isAdminToken: @escaping @Sendable (String) -> Bool, user: @escaping @Sendable (String) -> String?, serverKeys: ServerKeyRing = ServerKeyRing(),
        isUser: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.isAdminToken = isAdminToken
        self.user = user
        self.serverKeys = serverKeys
        self.isUser = isUser
    }

    init(host: ServerHost) {
        self.init(
            isAdminToken: { host.isAdminToken($0) }, user: { host.user(withToken: $0) }, serverKeys: host.serverKeys,
            isUser: { host.account($0) != nil })
    }

    /// The caller of a request with `X-SyncScope-Read-As: USER`: the user,
    /// when the request carries the server admin token and reads one of the
    /// user's databases (a route under `/database/1/` that only reads). The
    /// admin reads every user's data already (`admin/export`); this lets an
    /// inspector on the server ask the user's own questions (zones, changes)
    /// and nothing more: any write, or another credential, is refused.
    func reading(as user: String, caller: Identity, route: WebServicesRoute?) throws(CloudError) -> Identity {
        guard caller == .serverAdmin else {
            throw CloudError(
                .permissionFailure, "X-SyncScope-Read-As takes the server's admin token (a user reads their own databases without it).")
        }
        guard let route, route.family == .database, route.access == .read else {
            throw CloudError(
                .permissionFailure,
                "X-SyncScope-Read-As reaches the routes under /database/1/ that only read (zones/list, changes/zone, changes/database, records/query, …); it never writes.")
        }
        guard isUser(user) else {
            throw CloudError(.unknownItem, "X-SyncScope-Read-As names '\(user.prefix(80))', who is no user of this server.")
        }
        return .user(user)
    }

    /// How far a signed date may be from the server's clock, either way: 5 minutes.
    static let signedDateWindow: TimeInterval = 300

    /// The caller of a request signed with a server-to-server key, as Apple
    /// documents it: the key is one this server takes, the date is within
    /// ``signedDateWindow`` of the server's clock, and the signature is the
    /// key's over `date:base64(sha256(body)):subpath` (``WireRequestSignature``);
    /// any of these wrong is a 401 saying which. A good signature reaches the
    /// public database only (403 elsewhere, as Apple's keys do).
    func identifySigned(_ headers: RequestHeaders, body: Data, subpath: String, parts: [String], now: Date) throws(CloudError) -> Identity {
        guard let keyID = headers.serverKeyID, let dateText = headers.signedDate, let signatureText = headers.signature else {
            throw CloudError(
                .authenticationFailed,
                "A request signed with a server-to-server key carries all three of \(WireRequestSignature.keyIDHeader), \(WireRequestSignature.dateHeader) and \(WireRequestSignature.signatureHeader).")
        }
        guard let key = serverKeys.key(keyID) else {
            throw CloudError(
                .authenticationFailed,
                "This server has no server-to-server key '\(keyID.prefix(80))'; the admin adds one with 'syncscope serve --server-key KEYID=public.pem' or the admin call serverKeys.")
        }
        guard let date = WireRequestSignature.date(dateText) else {
            throw CloudError(
                .authenticationFailed, "\(WireRequestSignature.dateHeader) is '\(dateText.prefix(40))', not an ISO 8601 date such as 2026-01-25T22:15:43Z.")
        }
        let offset = date.timeIntervalSince(now)
        guard abs(offset) <= Self.signedDateWindow else {
            throw CloudError(
                .authenticationFailed,
                "The signed date \(dateText.prefix(40)) is \(Int(abs(offset).rounded())) s \(offset < 0 ? "behind" : "ahead of") the server's clock; a signed request's date must be within \(Int(Self.signedDateWindow)) s of it. Sign each request when you send it.")
        }
        guard let der = Data(base64Encoded: signatureText), let signature = try? P256.Signing.ECDSASignature(derRepresentation: der) else {
            throw CloudError(.authenticationFailed, "\(WireRequestSignature.signatureHeader) is not base64 of an ECDSA signature in DER form.")
        }
        let message = WireRequestSignature.message(date: dateText, bodySHA256: SHA256.hash(data: body), subpath: subpath)
        guard key.isValidSignature(signature, for: message) else {
            throw CloudError(
                .authenticationFailed,
                "The signature is not key '\(keyID.prefix(80))''s over this request: sign date:base64(sha256(body)):subpath (the body as sent, the path without its query) with the key's private key.")
        }
        guard parts.count >= 6, parts[0] == "database", parts[4] == "public" else {
            throw CloudError(
                .permissionFailure,
                "A server-to-server key reaches the public database only (/database/1/{container}/{environment}/public/…), as Apple's do; use a user's web auth token for \(subpath.prefix(120)).")
        }
        return .serverKey(keyID)
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
