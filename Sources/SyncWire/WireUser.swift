import SyncCore

/// A user on the wire, as `users/current` and `users/lookup/*` answer:
/// `{"userRecordName", "firstName"?, "lastName"?, "emailAddress"?}`.
public struct WireUser: Codable, Sendable, Hashable {
    public var userRecordName: String
    public var firstName: String?
    public var lastName: String?
    public var emailAddress: String?

    public init(userRecordName: String, firstName: String? = nil, lastName: String? = nil, emailAddress: String? = nil) {
        self.userRecordName = userRecordName
        self.firstName = firstName
        self.lastName = lastName
        self.emailAddress = emailAddress
    }
}
