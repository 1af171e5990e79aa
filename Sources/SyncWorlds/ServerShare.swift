import Foundation

/// A `CKShare` as the inspector shows it on its zone, whatever the server is:
/// a zone-wide share (the record `cloudkit.zoneshare`) or a record share
/// (a `cloudkit.share` record for one root record), its public permission,
/// its short GUID and URL, and every participant, the owner first.
///
/// Permissions, acceptance statuses and participant types are Apple's names
/// (`READ_WRITE`, `ACCEPTED`, `OWNER`, …), as CloudKit Web Services writes them.
public struct ServerShare: Sendable, Hashable {
    /// The share record's name: `cloudkit.zoneshare` for a zone-wide share.
    public var recordName: String
    /// The root record a record share is for; `nil` for a zone-wide share.
    public var rootRecordName: String?
    /// The user who owns the share (the zone's owner).
    public var owner: String
    /// `NONE`, `READ_ONLY` or `READ_WRITE`: what anyone with the URL may do.
    public var publicPermission: String
    public var shortGUID: String?
    /// The share's URL, when the server says it (over HTTP; an in-process server has none).
    public var url: String?
    /// The owner first, then the others in the order they were added.
    public var participants: [Participant]

    /// The record name of a zone-wide share, as Apple names it.
    public static let zoneShareRecordName = "cloudkit.zoneshare"
    /// The record type of every share.
    public static let recordType = "cloudkit.share"

    /// One participant of a share.
    public struct Participant: Sendable, Hashable {
        /// The participant's user record name (or, when the server gives
        /// only that, the e-mail address they were invited by).
        public var user: String
        /// `READ_ONLY` or `READ_WRITE` (the owner: `READ_WRITE`).
        public var permission: String
        /// `PENDING` (invited), `ACCEPTED` or `REMOVED`.
        public var acceptanceStatus: String
        /// `OWNER`, `PRIVATE_USER` (invited) or `PUBLIC_USER` (came through the URL).
        public var type: String

        public init(user: String, permission: String, acceptanceStatus: String, type: String) {
            self.user = user
            self.permission = permission
            self.acceptanceStatus = acceptanceStatus
            self.type = type
        }

        public var isOwner: Bool { type == "OWNER" }
    }

    public init(
        recordName: String = ServerShare.zoneShareRecordName, rootRecordName: String? = nil, owner: String, publicPermission: String,
        shortGUID: String?, url: String? = nil, participants: [Participant]
    ) {
        self.recordName = recordName
        self.rootRecordName = rootRecordName
        self.owner = owner
        self.publicPermission = publicPermission
        self.shortGUID = shortGUID
        self.url = url
        self.participants = participants
    }

    /// Whether the share covers the whole zone (`cloudkit.zoneshare`).
    public var isZoneWide: Bool { rootRecordName == nil && recordName == Self.zoneShareRecordName }

    /// The participant that is `user`, if any.
    public func participant(_ user: String) -> Participant? { participants.first { $0.user == user } }
}
