import Foundation
import SyncCore

/// A `CKShare` (a record of type `cloudkit.share`): who is invited, what
/// they may do, and the short GUID its URL carries. A zone-wide share (the
/// record `cloudkit.zoneshare`, ``rootRecordName`` nil) shares the whole
/// zone; a record share shares its root record and every record whose
/// `parent` chain reaches it. The owner is the zone's owner; accepted
/// participants see the zone in their shared database (``ZoneState/participants``).
public struct ZoneShare: Codable, Sendable, Hashable {
    /// The record name of a zone-wide share, as Apple names it.
    public static let recordName = "cloudkit.zoneshare"
    /// The record type of every share.
    public static let recordType = "cloudkit.share"

    public var shortGUID: String
    public var publicPermission: SharePermission
    /// Everyone but the owner, in the order they were added.
    public var participants: [ShareParticipant]
    /// The root record of a record share; nil for a zone-wide share.
    public var rootRecordName: String?

    public init(shortGUID: String, publicPermission: SharePermission = .none, participants: [ShareParticipant] = [], rootRecordName: String? = nil) {
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.participants = participants
        self.rootRecordName = rootRecordName
    }

    /// The participant that is `user`, if any.
    public func participant(_ user: String) -> ShareParticipant? { participants.first { $0.user == user } }
}

/// What a participant (or anyone with the URL) may do: Apple's `NONE`, `READ_ONLY`, `READ_WRITE`.
public enum SharePermission: String, Codable, Sendable, Hashable, CaseIterable {
    case none = "NONE"
    case readOnly = "READ_ONLY"
    case readWrite = "READ_WRITE"
}

/// Where a participant is: `PENDING` (invited; CloudKit JS's spelling, and
/// what the server writes), `ACCEPTED`, `REMOVED`. `INVITED` is read as `PENDING`.
public enum ShareAcceptanceStatus: String, Codable, Sendable, Hashable {
    case pending = "PENDING"
    case accepted = "ACCEPTED"
    case removed = "REMOVED"

    /// Reads both spellings of an invitation (`PENDING`, `INVITED`), `ACCEPTED`, `REMOVED`.
    public init?(appleName: String) {
        switch appleName.uppercased() {
        case "PENDING", "INVITED": self = .pending
        case "ACCEPTED": self = .accepted
        case "REMOVED": self = .removed
        default: return nil
        }
    }
}

/// How a participant came in: invited by the owner (`PRIVATE_USER`) or through the public URL (`PUBLIC_USER`).
public enum ShareParticipantType: String, Codable, Sendable, Hashable {
    case owner = "OWNER"
    case privateUser = "PRIVATE_USER"
    case publicUser = "PUBLIC_USER"
}

/// One participant of a share (never the owner).
public struct ShareParticipant: Codable, Sendable, Hashable {
    public var user: String
    public var permission: SharePermission
    public var acceptanceStatus: ShareAcceptanceStatus
    public var type: ShareParticipantType

    public init(user: String, permission: SharePermission, acceptanceStatus: ShareAcceptanceStatus = .pending, type: ShareParticipantType = .privateUser) {
        self.user = user
        self.permission = permission
        self.acceptanceStatus = acceptanceStatus
        self.type = type
    }
}

/// A share as the owner saves it: the participants they invite (by user
/// name) with their permissions, and the public permission. A participant
/// left out, or sent as `REMOVED`, is removed.
public struct ShareSave: Sendable, Hashable {
    public var publicPermission: SharePermission
    public var invitations: [Invitation]

    public struct Invitation: Sendable, Hashable {
        public var user: String
        public var permission: SharePermission
        public var removed: Bool

        public init(user: String, permission: SharePermission, removed: Bool = false) {
            self.user = user
            self.permission = permission
            self.removed = removed
        }
    }

    public init(publicPermission: SharePermission, invitations: [Invitation]) {
        self.publicPermission = publicPermission
        self.invitations = invitations
    }
}

/// A share found by its short GUID: its zone and the share, as `records/resolve` and `records/accept` answer.
public struct ShareResolution: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var share: ZoneShare
    /// The share record's name (`cloudkit.zoneshare` for a zone-wide share).
    public var shareRecordName: String
    /// The share record (type `cloudkit.share`), as stored in the zone.
    public var shareRecord: Record?
    /// A record share's root record, when asked for (`shouldFetchRootRecord`).
    public var rootRecord: Record?
    /// The caller's place in the share after the call (nil: not a participant).
    public var caller: ShareParticipant?
}
