import SyncCore

/// A user identity, as `users/caller` and `users/discover` answer:
/// `{"userRecordName", "nameComponents": {"givenName", "familyName"},
/// "lookupInfo": {"emailAddress", "userRecordName"}}`.
public struct WireUserIdentity: Codable, Sendable, Hashable {
    public struct NameComponents: Codable, Sendable, Hashable {
        public var givenName: String?
        public var familyName: String?

        public init(givenName: String? = nil, familyName: String? = nil) {
            self.givenName = givenName
            self.familyName = familyName
        }
    }

    public var userRecordName: String
    public var nameComponents: NameComponents?
    public var lookupInfo: WireUserLookupInfo?

    public init(userRecordName: String, nameComponents: NameComponents? = nil, lookupInfo: WireUserLookupInfo? = nil) {
        self.userRecordName = userRecordName
        self.nameComponents = nameComponents
        self.lookupInfo = lookupInfo
    }
}
