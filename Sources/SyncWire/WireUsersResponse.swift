import SyncCore

/// `{"users": [...]}`: the answer of `users/lookup/*` (users) and `users/discover` (identities).
public struct WireUsersResponse<User: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var users: [User]

    public init(users: [User]) { self.users = users }
}
