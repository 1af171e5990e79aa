import Foundation

/// A client of the server as `admin/…/clients` lists it: one app instance
/// (a push registration, an `X-SyncScope-Device`, or a user's web auth
/// token with one User-Agent). Ours, not CloudKit's.
public struct WireClient: Codable, Sendable, Hashable {
    /// The stable key feed events name it by.
    public var client: String
    /// Its short name (`alice · pyicloud`).
    public var name: String
    public var user: String?
    public var userAgent: String?
    public var firstSeen: Int64
    public var lastSeen: Int64
    public var requests: Int

    public init(client: String, name: String, user: String?, userAgent: String?, firstSeen: Int64, lastSeen: Int64, requests: Int) {
        self.client = client
        self.name = name
        self.user = user
        self.userAgent = userAgent
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.requests = requests
    }
}
