import SyncCore
import SyncServer
import SyncWorlds

extension ServerShare {
    /// A share as the engine keeps it (zone-wide, or the share record
    /// `recordName` of a record share, with its root): the zone's owner first
    /// (`OWNER`, `READ_WRITE`, `ACCEPTED`, as Web Services writes it), then
    /// the participants. The engine knows no URL (the HTTP layer makes it).
    init(_ share: ZoneShare, recordName: String = ZoneShare.recordName, owner: String) {
        let ownerParticipant = Participant(
            user: owner, permission: SharePermission.readWrite.rawValue, acceptanceStatus: ShareAcceptanceStatus.accepted.rawValue,
            type: ShareParticipantType.owner.rawValue)
        self.init(
            recordName: recordName, rootRecordName: share.rootRecordName, owner: owner, publicPermission: share.publicPermission.rawValue, shortGUID: share.shortGUID,
            participants: [ownerParticipant] + share.participants.map {
                Participant(user: $0.user, permission: $0.permission.rawValue, acceptanceStatus: $0.acceptanceStatus.rawValue, type: $0.type.rawValue)
            })
    }
}
