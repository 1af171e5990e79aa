import Foundation
import SyncCore

/// `CKShare`s: the owner saves a share record (type `cloudkit.share`) with
/// participants and a public permission: `cloudkit.zoneshare` shares the
/// whole zone, any other name shares its root record (`forRecord`) and the
/// records whose `parent` chain reaches it. An invitee (or, with a public
/// permission, anyone) resolves and accepts it by its short GUID, and the
/// zone then appears in their shared database, holding what the share
/// shares. `zones/share` is the shorthand that skips the invitation
/// (``shareRecordZone(caller:database:zoneID:participants:revoke:)``).
extension ServerEngine {

    /// Checks that `caller` may save `save` as the zone-wide share of `zoneID`
    /// (``checkShare(caller:database:zoneID:shareName:rootRecordName:rootsSavedAlongside:_:)``).
    public func checkZoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID, _ save: ShareSave?) throws(CloudError) {
        try checkShare(caller: caller, database: database, zoneID: zoneID, shareName: ZoneShare.recordName, rootRecordName: nil, save)
    }

    /// Checks that `caller` may save `save` (or, nil, delete) as the share
    /// record `shareName` of `zoneID` before anything is applied: the owner,
    /// in their private database, a custom zone, participants that exist;
    /// one share per zone or per record hierarchy, as Apple has it (a zone
    /// with a zone-wide share has no record shares and the other way round;
    /// a record, its ancestors and descendants are in one share at most).
    /// A new record share names its root, which exists or is saved in the
    /// same request (`rootsSavedAlongside`).
    public func checkShare(
        caller: Caller, database: DatabaseID, zoneID: RecordZoneID, shareName: String, rootRecordName: String?,
        rootsSavedAlongside: Set<String> = [], _ save: ShareSave?
    ) throws(CloudError) {
        try checkCaller(caller)
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        guard database.scope == .private, id.ownerName == caller.user else {
            throw CloudError(
                .permissionFailure, "Only the owner of zone '\(id.zoneName)' can change its shares, in their private database.", zoneID: id)
        }
        guard !id.isDefaultZone else {
            throw CloudError(.invalidArguments, "The default zone cannot be shared; share a custom zone.", zoneID: id)
        }
        let zone = try zone(id, for: caller, in: database)
        guard let save else { return }
        if shareName == ZoneShare.recordName {
            guard zone.recordShares.isEmpty else {
                throw CloudError(
                    .alreadyExists,
                    "Zone '\(id.zoneName)' already holds record shares (\(zone.recordShares.keys.sorted().joined(separator: ", "))); a zone with shared records cannot also have a zone-wide share (CKError.alreadyShared).",
                    recordName: shareName, zoneID: id)
            }
        } else if let existing = zone.recordShares[shareName] {
            if let rootRecordName, rootRecordName != existing.rootRecordName {
                throw CloudError(
                    .invalidArguments, "Share '\(shareName)' is the share of record '\(existing.rootRecordName ?? "")'; a share keeps its root record.",
                    recordName: shareName, zoneID: id)
            }
        } else {
            try checkNewRecordShare(zone, shareName: shareName, rootRecordName: rootRecordName, rootsSavedAlongside: rootsSavedAlongside)
        }
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

    private func checkNewRecordShare(_ zone: ZoneState, shareName: String, rootRecordName: String?, rootsSavedAlongside: Set<String>) throws(CloudError) {
        let id = zone.zoneID
        guard let root = rootRecordName, !root.isEmpty else {
            throw CloudError(
                .invalidArguments,
                "Share record '\(shareName)' names no root record: send forRecord {\"recordName\"} (or save the root record with its share reference in the same request), or name a zone-wide share \(ZoneShare.recordName).",
                recordName: shareName, zoneID: id)
        }
        guard zone.records[root] != nil || rootsSavedAlongside.contains(root) else {
            throw CloudError(.unknownItem, "The root record '\(root)' of share '\(shareName)' does not exist in zone '\(id.zoneName)'.", recordName: root, zoneID: id)
        }
        func alreadyShared(_ why: String) -> CloudError {
            CloudError(.alreadyExists, "Record '\(root)' cannot be shared: \(why). A record is in one share at most (CKError.alreadyShared).", recordName: root, zoneID: id)
        }
        if zone.share != nil || zone.participants.contains(where: { zone.limitedParticipants[$0] == nil }) {
            throw alreadyShared("its zone '\(id.zoneName)' is shared whole (a zone-wide share or zones/share)")
        }
        if let other = zone.shareOfRoot[root] { throw alreadyShared("it already has the share '\(other)'") }
        if let other = zone.recordShareName(containing: root) { throw alreadyShared("its parent chain is in the share '\(other)'") }
        for (otherRoot, other) in zone.shareOfRoot.sorted(by: { $0.key < $1.key }) where isAncestor(root, of: otherRoot, in: zone) {
            throw alreadyShared("its descendant '\(otherRoot)' has the share '\(other)'")
        }
    }

    /// Whether `ancestor` is on `name`'s parent chain.
    func isAncestor(_ ancestor: String, of name: String, in zone: ZoneState) -> Bool {
        var current = name
        for _ in 0...zone.parents.count {
            guard let parent = zone.parents[current] else { return false }
            if parent == ancestor { return true }
            current = parent
        }
        return false
    }

    /// Saves the zone-wide share of a zone (``saveShare(caller:database:zoneID:shareName:rootRecordName:_:)``).
    @discardableResult
    public func saveZoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID, _ save: ShareSave) throws(CloudError) -> ZoneShare {
        try saveShare(caller: caller, database: database, zoneID: zoneID, shareName: ZoneShare.recordName, rootRecordName: nil, save)
    }

    /// Saves a share (checked first with ``checkShare(caller:database:zoneID:shareName:rootRecordName:rootsSavedAlongside:_:)``,
    /// its root record saved): new participants are invited, those left out
    /// or sent as removed lose what it shares, a public permission of `NONE`
    /// removes the public users.
    @discardableResult
    public func saveShare(
        caller: Caller, database: DatabaseID, zoneID: RecordZoneID, shareName: String, rootRecordName: String?, _ save: ShareSave
    ) throws(CloudError) -> ZoneShare {
        try checkShare(caller: caller, database: database, zoneID: zoneID, shareName: shareName, rootRecordName: rootRecordName, save)
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        let zone = try zone(id, for: caller, in: database)
        let found = zone.storedShare(named: shareName)
        let root = shareName == ZoneShare.recordName ? nil : (found?.rootRecordName ?? rootRecordName)
        var share = found ?? ZoneShare(shortGUID: newShortGUID(), rootRecordName: root)
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
                revoke(zone, shareName: shareName, from: participant.user, database: database)
            }
        }
        for invitation in save.invitations where !invitation.removed && invitation.user != caller.user {
            guard !kept.contains(where: { $0.user == invitation.user }) else { continue }
            kept.append(ShareParticipant(user: invitation.user, permission: invitation.permission))
        }
        share.participants = kept
        if found == nil {
            containerState(database).sharesByGUID[share.shortGUID] = RecordID(recordName: shareName, zoneID: id)
            if let root { zone.shareOfRoot[root] = shareName }
        }
        zone.setShare(share, named: shareName)
        return share
    }

    /// Forgets the share record `name`'s share (its record was deleted):
    /// every participant loses what it shared.
    func dropShare(named name: String, in zone: ZoneState, database: DatabaseID) {
        guard let share = zone.storedShare(named: name) else { return }
        for participant in share.participants where participant.acceptanceStatus == .accepted {
            revoke(zone, shareName: name, from: participant.user, database: database)
        }
        containerState(database).sharesByGUID[share.shortGUID] = nil
        if let root = share.rootRecordName { zone.shareOfRoot[root] = nil }
        zone.setShare(nil, named: name)
    }

    /// The zone-wide share of a zone the caller owns or takes part in, if it has one.
    public func zoneShare(caller: Caller, database: DatabaseID, zoneID: RecordZoneID) -> ZoneShare? {
        share(caller: caller, database: database, zoneID: zoneID, named: ZoneShare.recordName)
    }

    /// The share record `name` of a zone the caller owns or takes part in, if there is one.
    public func share(caller: Caller, database: DatabaseID, zoneID: RecordZoneID, named name: String) -> ZoneShare? {
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        let privateDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .private)
        return containerState(privateDatabase).users[id.ownerName]?.privateZones[id.zoneName]?.storedShare(named: name)
    }

    /// Every share of a zone the caller owns or takes part in, by share
    /// record name: the zone-wide one, or its record shares (a record share's
    /// participant sees only the shares they take part in).
    public func shares(caller: Caller, database: DatabaseID, zoneID: RecordZoneID) -> [(name: String, share: ZoneShare)] {
        let id = normalize(zoneID, caller: caller, scope: database.scope)
        let privateDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .private)
        guard let zone = containerState(privateDatabase).users[id.ownerName]?.privateZones[id.zoneName], zone.hasShares else { return [] }
        var found: [(name: String, share: ZoneShare)] = zone.share.map { [(ZoneShare.recordName, $0)] } ?? []
        for name in zone.recordShares.keys.sorted() where caller.user == id.ownerName || zone.isVisible(name, to: caller.user) {
            if let share = zone.recordShares[name] { found.append((name, share)) }
        }
        return found
    }

    /// Whether any share exists: until one does, no answer needs its share records filled.
    public var hasShares: Bool { containers.values.contains { !$0.sharesByGUID.isEmpty } }

    /// The share a short GUID names, in whichever container holds it (what
    /// the share URL's page shows, before anyone signs in); nil when none.
    public func findShare(shortGUID: String) -> (container: String, environment: ContainerEnvironment, resolution: ShareResolution)? {
        for key in containers.keys.sorted(by: { ($0.container, $0.environment.rawValue) < ($1.container, $1.environment.rawValue) }) {
            let database = DatabaseID(container: key.container, environment: key.environment, scope: .private)
            guard containerState(database).sharesByGUID[shortGUID] != nil, let (zone, name, share) = try? sharedRecord(shortGUID, database: database) else {
                continue
            }
            return (key.container, key.environment, resolution(zone, name, share, rootRecordDesiredKeys: nil))
        }
        return nil
    }

    /// `records/resolve`: the share a short GUID names, for its owner, a
    /// participant not removed, or anyone when the share is public; with a
    /// record share's root record when `rootRecordDesiredKeys` is given
    /// (`shouldFetchRootRecord`; empty: every field).
    public func resolveShare(caller: Caller, database: DatabaseID, shortGUID: String, rootRecordDesiredKeys: [String]? = nil) throws(CloudError) -> ShareResolution {
        try checkCaller(caller)
        let (zone, name, share) = try sharedRecord(shortGUID, database: database)
        let participant = share.participant(caller.user)
        guard zone.zoneID.ownerName == caller.user || participant != nil || share.publicPermission != .none else {
            throw CloudError(.permissionFailure, "The share \(shortGUID) is not shared with you, and it is not public.")
        }
        return resolution(zone, name, share, rootRecordDesiredKeys: rootRecordDesiredKeys).with(caller: participant)
    }

    /// `records/accept`: the caller accepts a share; its zone appears in
    /// their shared database (holding only the shared hierarchy, for a
    /// record share). Anyone may accept a public share (as a public user).
    public func acceptShare(caller: Caller, database: DatabaseID, shortGUID: String, rootRecordDesiredKeys: [String]? = nil) throws(CloudError) -> ShareResolution {
        try checkCaller(caller)
        let (zone, name, found) = try sharedRecord(shortGUID, database: database)
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
            zone.setShare(share, named: name)
            touchShareRecord(named: name, in: zone, by: caller, database: database)
            let sharedDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .shared)
            if name == ZoneShare.recordName {
                grantSharedZone(zone, to: caller.user, database: sharedDatabase)
            } else if zone.participants.contains(caller.user) {
                zone.limitedParticipants[caller.user]?.insert(name)
            } else {
                zone.limitedParticipants[caller.user] = [name]
                grantSharedZone(zone, to: caller.user, database: sharedDatabase)
            }
        }
        return resolution(zone, name, share, rootRecordDesiredKeys: rootRecordDesiredKeys).with(caller: share.participants[index])
    }

    /// The share record changed with its participant list (as Apple's share
    /// does when someone accepts): a new change tag and a new place in the
    /// zone's changes, so the owner and the participants fetch it again.
    /// Like any other change to a zone, it is a commit: the commit observers
    /// hear of it (the push layer notifies the owner's subscriptions).
    private func touchShareRecord(named name: String, in zone: ZoneState, by caller: Caller, database: DatabaseID) {
        guard var stored = zone.records[name] else { return }
        let before = commitObservers.isEmpty ? nil : record(stored, name: name, zone: zone)
        let now = clock.now()
        zone.log.remove(stored.sequence)
        stored.sequence = zone.log.append(name)
        stored.tag = nextChangeTag
        nextChangeTag += 1
        stored.modified = Stamp(time: now, user: names.intern(caller.user), device: caller.deviceID.map { names.intern($0) } ?? 0)
        zone.store(stored, name: name)
        applyRetention(to: zone)
        let reached = zone.participants(seeing: [name])
        markZoneChanged(zone.zoneID, forOwnerAnd: reached, in: database)
        guard let before else { return }
        let after = record(stored, name: name, zone: zone)
        // The share's zone is its owner's private zone, whatever database the call named (Apple's path is under public).
        let ownerDatabase = DatabaseID(container: database.container, environment: database.environment, scope: .private)
        publishCommit(
            [CommittedChange(recordID: after.recordID, recordType: after.recordType, before: before, after: after)], in: zone.zoneID,
            database: ownerDatabase, participants: reached, caller: caller, time: now)
    }

    /// A zone changed: its owner's private database log says so, and the
    /// shared database log of each participant the change reaches.
    func markZoneChanged(_ zoneID: RecordZoneID, forOwnerAnd participants: Set<String>, in database: DatabaseID) {
        let owner = databases(of: zoneID.ownerName, in: database)
        owner.privateLog.zoneChanged(zoneID)
        applyRetention(to: &owner.privateLog)
        for participant in participants.sorted() {
            let other = databases(of: participant, in: database)
            other.sharedLog.zoneChanged(zoneID)
            applyRetention(to: &other.sharedLog)
        }
    }

    /// Whether the caller may write a zone shared with them: a zone-wide
    /// share's `READ_ONLY` participant may not (a `zones/share` participant
    /// may; a record share's participant is checked per record).
    func checkSharedWrite(_ zone: ZoneState, caller: Caller) throws(CloudError) {
        guard let participant = zone.share?.participant(caller.user), participant.permission != .readWrite else { return }
        throw CloudError(
            .permissionFailure,
            "Zone '\(zone.zoneID.zoneName)' of \(zone.zoneID.ownerName) is shared with you read-only (\(participant.permission.rawValue)); you cannot change its records.",
            zoneID: zone.zoneID)
    }

    /// Whether a record share's participant may save or delete record `name`
    /// (whose parent, for a new record, is `parent`): it is in a share they
    /// accepted with `READ_WRITE`.
    func checkLimitedWrite(_ zone: ZoneState, caller: Caller, name: String, parent: String?) throws(CloudError) {
        guard let shares = zone.limitedParticipants[caller.user] else { return }
        let owner = zone.zoneID.ownerName
        let shareName = zone.records[name] != nil || zone.tombstones[name] != nil
            ? zone.recordShareName(containing: name) : parent.flatMap { zone.recordShareName(containing: $0) }
        guard let shareName, shares.contains(shareName) else {
            throw CloudError(
                .permissionFailure,
                "Record '\(name)' is not in a record hierarchy \(owner) shares with you; a new record joins a share through a parent in it.",
                recordName: name, zoneID: zone.zoneID)
        }
        guard zone.recordShares[shareName]?.participant(caller.user)?.permission == .readWrite else {
            throw CloudError(
                .permissionFailure, "The share '\(shareName)' of \(owner) is read-only for you; you cannot change its records.", recordName: name, zoneID: zone.zoneID)
        }
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
        zone.limitedParticipants[user] = nil
        let other = databases(of: user, in: database)
        other.sharedZones.remove(zone.zoneID)
        other.sharedLog.zoneRemoved(zone.zoneID, reason: .deleted)
        applyRetention(to: &other.sharedLog)
        databaseChanged(user, .shared, database, zone.zoneID, .shareRevoked, originatingDeviceID: nil)
    }

    /// A participant leaves the share `shareName`: the zone leaves their
    /// shared database unless another share of it still holds them.
    private func revoke(_ zone: ZoneState, shareName: String, from user: String, database: DatabaseID) {
        guard shareName != ZoneShare.recordName else { return revokeSharedZone(zone, from: user, database: database) }
        guard var shares = zone.limitedParticipants[user], shares.remove(shareName) != nil else { return }
        if shares.isEmpty {
            revokeSharedZone(zone, from: user, database: database)
        } else {
            zone.limitedParticipants[user] = shares
        }
    }

    private func sharedRecord(_ shortGUID: String, database: DatabaseID) throws(CloudError) -> (ZoneState, String, ZoneShare) {
        guard let id = containerState(database).sharesByGUID[shortGUID],
              let zone = containerState(database).users[id.zoneID.ownerName]?.privateZones[id.zoneID.zoneName],
              let share = zone.storedShare(named: id.recordName)
        else {
            throw CloudError(.unknownItem, "No share has the short GUID '\(shortGUID)'.")
        }
        return (zone, id.recordName, share)
    }

    private func resolution(_ zone: ZoneState, _ name: String, _ share: ZoneShare, rootRecordDesiredKeys: [String]?) -> ShareResolution {
        let shareRecord = zone.records[name].map { record($0, name: name, zone: zone) }
        var root: Record?
        if let rootKeys = rootRecordDesiredKeys, let rootName = share.rootRecordName, let stored = zone.records[rootName] {
            root = record(stored, name: rootName, zone: zone, desiredKeys: rootKeys.isEmpty ? nil : rootKeys)
        }
        return ShareResolution(zoneID: zone.zoneID, share: share, shareRecordName: name, shareRecord: shareRecord, rootRecord: root, caller: nil)
    }

    /// A new short GUID: 128 bits of the engine's seeded randomness in
    /// base64url (a replayed journal makes the same one).
    private func newShortGUID() -> String {
        Data(random.bytes(16)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

extension ZoneState {
    /// The share record `name`'s share: the zone-wide one or a record share.
    func storedShare(named name: String) -> ZoneShare? {
        name == ZoneShare.recordName ? share : recordShares[name]
    }

    func setShare(_ newShare: ZoneShare?, named name: String) {
        if name == ZoneShare.recordName { share = newShare } else { recordShares[name] = newShare }
    }
}

extension ShareResolution {
    func with(caller: ShareParticipant?) -> ShareResolution {
        var copy = self
        copy.caller = caller
        return copy
    }
}
