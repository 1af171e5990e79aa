import SyncCore

/// How a user is looked up: `{"emailAddress"?, "phoneNumber"?, "userRecordName"?}`.
public struct WireUserLookupInfo: Codable, Sendable, Hashable {
    public var emailAddress: String?
    public var phoneNumber: String?
    public var userRecordName: String?

    public init(emailAddress: String? = nil, phoneNumber: String? = nil, userRecordName: String? = nil) {
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.userRecordName = userRecordName
    }
}
