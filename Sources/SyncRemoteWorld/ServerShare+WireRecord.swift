import SyncCore
import SyncWire
import SyncWorlds

extension ServerShare {
    /// A share record as Web Services writes it (`records/lookup`), with its
    /// share keys; `nil` for a record without them.
    init?(_ wire: WireRecord, zoneOwner: String) {
        guard wire.recordType == WireRecord.shareRecordType, let participants = wire.participants else { return nil }
        let owner = wire.owner.flatMap(Self.user(of:)) ?? zoneOwner
        self.init(
            recordName: wire.recordName, owner: owner, publicPermission: wire.publicPermission ?? "NONE", shortGUID: wire.shortGUID,
            url: wire.url,
            participants: participants.compactMap { participant in
                Self.user(of: participant).map { user in
                    Participant(
                        user: user, permission: participant.permission ?? "NONE", acceptanceStatus: participant.acceptanceStatus ?? "PENDING",
                        type: participant.type ?? "PRIVATE_USER")
                }
            })
    }

    /// Who a participant is: their user record name, else the address they were invited by.
    private static func user(of participant: WireShareParticipant) -> String? {
        let identity = participant.userIdentity
        return identity?.userRecordName ?? identity?.lookupInfo?.userRecordName ?? identity?.lookupInfo?.emailAddress
            ?? identity?.lookupInfo?.phoneNumber ?? participant.participantId
    }
}
