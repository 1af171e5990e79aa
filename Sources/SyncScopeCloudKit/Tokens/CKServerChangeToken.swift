import Foundation
import SyncCore

/// An opaque point in a database's or a zone's history, as CloudKit's `CKServerChangeToken`.
/// Keep it with secure coding (`NSKeyedArchiver`) and hand it back to the next fetch.
public final class CKServerChangeToken: NSObject, NSSecureCoding, NSCopying, Sendable {
    let token: ServerChangeToken

    init(_ token: ServerChangeToken) {
        self.token = token
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(token.rawValue as NSString, forKey: "token")
    }

    public init?(coder: NSCoder) {
        guard let raw = coder.decodeObject(of: NSString.self, forKey: "token") else { return nil }
        token = ServerChangeToken(rawValue: raw as String)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKServerChangeToken)?.token == token
    }

    public override var hash: Int { token.hashValue }

    public override var description: String { "<CKServerChangeToken: \(token.shortForm)>" }
}
