import SyncCore

/// A share's participant on the wire, as CloudKit JS's `ShareParticipant`:
/// `{"participantId", "userIdentity": {"userRecordName", "lookupInfo":
/// {"emailAddress", "userRecordName"}, "nameComponents"}, "permission",
/// "acceptanceStatus", "type"}`. An owner inviting someone sends at least
/// `userIdentity.lookupInfo` (an e-mail address or a user record name) and `permission`.
public struct WireShareParticipant: Codable, Sendable, Hashable {
    /// A participant's identity: unlike a user identity, an invitee may be
    /// named by `lookupInfo` alone.
    public struct Identity: Codable, Sendable, Hashable {
        public var userRecordName: String?
        public var lookupInfo: WireUserLookupInfo?
        public var nameComponents: WireUserIdentity.NameComponents?

        public init(userRecordName: String? = nil, lookupInfo: WireUserLookupInfo? = nil, nameComponents: WireUserIdentity.NameComponents? = nil) {
            self.userRecordName = userRecordName
            self.lookupInfo = lookupInfo
            self.nameComponents = nameComponents
        }
    }

    public var participantId: String?
    public var userIdentity: Identity?
    /// `NONE`, `READ_ONLY` or `READ_WRITE`.
    public var permission: String?
    /// `PENDING` (`INVITED` is read too), `ACCEPTED`, `REMOVED`.
    public var acceptanceStatus: String?
    /// `OWNER`, `USER` / `PRIVATE_USER`, `PUBLIC_USER`.
    public var type: String?

    public init(participantId: String? = nil, userIdentity: Identity? = nil, permission: String? = nil, acceptanceStatus: String? = nil, type: String? = nil) {
        self.participantId = participantId
        self.userIdentity = userIdentity
        self.permission = permission
        self.acceptanceStatus = acceptanceStatus
        self.type = type
    }
}
