import Foundation

/// A step on a zone-wide `CKShare`, Apple's way: the owner saves the share
/// with the participants they invite (`saveShare`) and removes some later
/// (`removeParticipant`); an invitee looks it up by its URL (`resolveShare`,
/// Web Services' `records/resolve`) and accepts it (`acceptShare`,
/// `records/accept`), and the zone appears in their shared database.
public struct ZoneShareAction: Sendable, Equatable {
    /// One participant of a `saveShare` (or one removed, by name).
    public struct Participant: Sendable, Equatable {
        public var user: String
        /// Apple's `READ_ONLY` or `READ_WRITE`.
        public var permission: String

        public init(user: String, permission: String) {
            self.user = user
            self.permission = permission
        }
    }

    /// The permissions a share and a participant take, in Apple's words.
    public static let permissions = ["NONE", "READ_ONLY", "READ_WRITE"]

    public var device: String
    /// The shared zone: the owner's own (`Notes`), or for an invitee the
    /// owner's zone by name and owner (`Notes@alice`: the share's URL the owner sent them).
    public var zone: ZoneRef
    /// `saveShare`: everyone the share invites, in file order (those left
    /// out are removed). `removeParticipant`: those removed.
    public var participants: [Participant]
    /// `saveShare`: what anyone with the URL may do (`NONE`: only those invited).
    public var publicPermission: String

    public init(device: String, zone: ZoneRef, participants: [Participant] = [], publicPermission: String = "NONE") {
        self.device = device
        self.zone = zone
        self.participants = participants
        self.publicPermission = publicPermission
    }
}
