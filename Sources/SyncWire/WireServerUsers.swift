/// `admin/…/users`' answer: the server's users, by name (SyncScope
/// extension, server admin token). No credential is in it.
public struct WireServerUsers: Codable, Sendable, Hashable {
    public var users: [String]

    public init(users: [String]) {
        self.users = users
    }
}
