import SyncCore

/// `users/lookup/email` and `users/lookup/id`: `{"users": [{"emailAddress"} | {"userRecordName"}]}`.
public struct WireUsersLookupRequest: Codable, Sendable, Hashable {
    public var users: [WireUserLookupInfo]

    public init(users: [WireUserLookupInfo]) { self.users = users }
}
