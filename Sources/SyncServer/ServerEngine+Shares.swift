import Foundation
import SyncCore

/// Zone-wide `CKShare`s: the owner saves the share record `cloudkit.zoneshare`
/// with participants and a public permission; an invitee (or, with a public
/// permission, anyone) resolves and accepts it by its short GUID, and the
/// zone then appears in their shared database. `zones/share` is the shorthand
/// that skips the invitation (``shareRecordZone(caller:database:zoneID:participants:revoke:)``).
extension ServerEngine {

    /// Checks that `caller` may save `save` as the share of `zoneID` (the
    /// owner, in their private database, a custom zone, participants that
    /// exist), before anything is applied.
    public func checkZoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID, _ save: ShareSave?) throws(CloudError) {
        try checkCaller(caller)
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        guard database.scope == .private, id.ownerName == caller.user else {
            throw CloudError(
                .permissionFailure, "Only the owner of zone '\(id.zoneName)' can change its share, in their private database.", zoneID: id)
        }
        guard !id.isDefaultZone else {
            throw CloudError(.invalidArguments, "The default zone cannot be shared; share a custom zone.", zoneID: id)
        }
        _ = try zone(id, for: caller, in: database)
        guard let save else { return }
        for invitation in save.invitations where invitation.user != caller.user {
            guard accounts[invitation.user] != nil else {
                throw CloudError(.invalidArguments, "There is no user '\(invitation.user)' to share with.", zoneID: id)
            }
            guard invitation.removed || invitation.permission != .none else {
                throw CloudError(
                    .invalidArguments, "Participant '\(invitation.user)' has permission NONE; invite with READ_ONLY or READ_WRITE.", zoneID: id)
            }
        }
    }

    /// Saves the share of a zone (checked first with ``checkZoneShare(caller:database:zoneID:_:)``):
    /// new participants are invited, those left out or sent as removed lose
    /// the zone, a public permission of `NONE` removes the public users.
    @discardableResult
    public func saveZoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID, _ save: ShareSave) throws(CloudError) -> ZoneShare {
        try checkZoneShare(caller: caller, database: database, zoneID: zoneID, save)
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        let zone = try zone(id, for: caller, in: database)
        var share = zone.share ?? ZoneShare(shortGUID: newShortGUID())
        share.publicPermission = save.publicPermission
        var kept: [ShareParticipant] = []
        for var participant in share.participants {
            let invitation = save.invitations.first { $0.user == participant.user }
            let stays: Bool
            switch participant.type {
            case .publicUser:
                stays = invitation?.removed != true && save.publicPermission != .none
                participant.permission = invitation?.permission ?? save.publicPermission
            default:
                stays = invitation.map { !$0.removed } ?? false
                if let invitation { participant.permission = invitation.permission }
            }
            if stays {
                kept.append(participant)
            } else if participant.acceptanceStatus == .accepted {
                revokeSharedZone(zone, from: participant.user, database: database)
            }
        }
        for invitation in save.invitations where !invitation.removed && invitation.user != caller.user {
            guard !kept.contains(where: { $0.user == invitation.user }) else { continue }
            kept.append(ShareParticipant(user: invitation.user, permission: invitation.permission))
        }
        share.participants = kept
        if zone.share == nil { containerState(database).sharesByGUID[share.shortGUID] = id }
        zone.share = share
        return share
    }

    /// Deletes a zone's share: every participant loses the zone.
    public func deleteZoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID) throws(CloudError) {
        try checkZoneShare(caller: caller, database: database, zoneID: zoneID, nil)
        let zone = try zone(normalize(zoneID, caller: caller, scope: database.scope), for: caller, in: database)
        guard let share = zone.share else { return }
        for participant in share.participants where participant.acceptanceStatus == .accepted {
            revokeSharedZone(zone, from: participant.user, database: database)
        }
        containerState(database).sharesByGUID[share.shortGUID] = nil
        zone.share = nil
    }

    /// The share of a zone the caller owns or takes part in, if it has one.
    public func zoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID) -> ZoneShare? {
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        let privateDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .private)
        return containerState(privateDatabase).users[id.ownerName]?.privateZones[id.zoneName]?.share
    }

    /// `records/resolve`: the share a short GUID names, for its owner, a
    /// participant not removed, or anyone when the share is public.
    public func resolveShare(caller: Caller, database: DatabaseID, shortGUID: String) throws(CloudError) -> ShareResolution {
        try checkCaller(caller)
        let (zone, share) = try sharedZone(shortGUID, database: database)
        let participant = share.participant(caller.user)
        guard zone.zoneID.ownerName == caller.user || participant != nil || share.publicPermission != .none else {
            throw CloudError(.permissionFailure, "The share \(shortGUID) is not shared with you, and it is not public.")
        }
        return resolution(zone, share).with(caller: participant)
    }

    /// `records/accept`: the caller accepts a share; its zone appears in
    /// their shared database. Anyone may accept a public share (as a public user).
    public func acceptShare(caller: Caller, database: DatabaseID, shortGUID: String) throws(CloudError) -> ShareResolution {
        try checkCaller(caller)
        let (zone, found) = try sharedZone(shortGUID, database: database)
        var share = found
        guard zone.zoneID.ownerName != caller.user else {
            throw CloudError(.invalidArguments, "You own the share \(shortGUID); only participants accept a share.")
        }
        let index: Int
        if let existing = share.participants.firstIndex(where: { $0.user == caller.user }) {
            index = existing
        } else if share.publicPermission != .none {
            share.participants.append(ShareParticipant(user: caller.user, permission: share.publicPermission, type: .publicUser))
            index = share.participants.count - 1
        } else {
            throw CloudError(.permissionFailure, "The share \(shortGUID) is not shared with you, and it is not public.")
        }
        if share.participants[index].acceptanceStatus != .accepted {
            share.participants[index].acceptanceStatus = .accepted
            zone.share = share
            let sharedDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .shared)
            grantSharedZone(zone, to: caller.user, database: sharedDatabase)
        }
        return resolution(zone, share).with(caller: share.participants[index])
    }

    /// Whether the caller may write a zone shared with them: a share's
    /// `READ_ONLY` participant may not (a `zones/share` participant may).
    func checkSharedWrite(_ zone: ZoneState, caller: Caller) throws(CloudError) {
        guard let participant = zone.share?.participant(caller.user), participant.permission != .readWrite else { return }
        throw CloudError(
            .permissionFailure,
            "Zone '\(zone.zoneID.zoneName)' of \(zone.zoneID.ownerName) is shared with you read-only (\(participant.permission.rawValue)); you cannot change its records.",
            zoneID: zone.zoneID)
    }

    /// Gives a user the zone in their shared database (a no-op when they have it).
    func grantSharedZone(_ zone: ZoneState, to user: String, database: DatabaseID) {
        guard zone.participants.insert(user).inserted else { return }
        let other = databases(of: user, in: database)
        other.sharedZones.insert(zone.zoneID)
        other.sharedLog.zoneChanged(zone.zoneID)
        applyRetention(to: &other.sharedLog)
        databaseChanged(user, .shared, database, zone.zoneID, .zoneShared, originatingDeviceID: nil)
    }

    /// Takes the zone out of a user's shared database ("deleted" there).
    func revokeSharedZone(_ zone: ZoneState, from user: String, database: DatabaseID) {
        guard zone.participants.remove(user) != nil else { return }
        let other = databases(of: user, in: database)
        other.sharedZones.remove(zone.zoneID)
        other.sharedLog.zoneRemoved(zone.zoneID, reason: .deleted)
        applyRetention(to: &other.sharedLog)
        databaseChanged(user, .shared, database, zone.zoneID, .shareRevoked, originatingDeviceID: nil)
    }

    private func sharedZone(_ shortGUID: String, database: DatabaseID) throws(CloudError) -> (ZoneState, ZoneShare) {
        guard let id = containerState(database).sharesByGUID[shortGUID],
              let zone = containerState(database).users[id.ownerName]?.privateZones[id.zoneName], let share = zone.share
        else {
            throw CloudError(.unknownItem, "No share has the short GUID '\(shortGUID)'.")
        }
        return (zone, share)
    }

    private func resolution(_ zone: ZoneState, _ share: ZoneShare) -> ShareResolution {
        var shareRecord: Record?
        if let stored = zone.records[ZoneShare.recordName] { shareRecord = record(stored, name: ZoneShare.recordName, zoneID: zone.zoneID) }
        return ShareResolution(zoneID: zone.zoneID, share: share, shareRecord: shareRecord, caller: nil)
    }

    /// A new short GUID: 128 bits of the engine's seeded randomness in
    /// base64url (a replayed journal makes the same one).
    private func newShortGUID() -> String {
        Data(random.bytes(16)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

extension ShareResolution {
    func with(caller: ShareParticipant?) -> ShareResolution {
        var copy = self
        copy.caller = caller
        return copy
    }
}
