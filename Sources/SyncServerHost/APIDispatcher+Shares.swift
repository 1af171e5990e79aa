import Foundation
import SyncCore
import SyncWire
import SyncServer

/// `CKShare` over Web Services: a zone-wide share saved with `records/modify`
/// (the record `cloudkit.zoneshare` of type `cloudkit.share`, with
/// `participants` and `publicPermission`), found with `records/resolve` and
/// accepted with `records/accept` by its short GUID.
extension APIDispatcher {
    /// One share change of a `records/modify`: operation `index` saves the
    /// share (`save`) or deletes it (`save` nil).
    package struct ShareChange: Sendable {
        package var index: Int
        package var save: ShareSave?
    }

    /// The share change an operation makes, if it touches a share record;
    /// throws for a share this server does not keep (a record share) or a
    /// malformed participant.
    static func shareChange(_ operation: WireRecordsModifyRequest.Operation, type: RecordOperationType, index: Int) throws(CloudError) -> ShareChange? {
        let record = operation.record
        let isShareName = record.recordName == ZoneShare.recordName
        if type == .delete || type == .forceDelete {
            return isShareName ? ShareChange(index: index, save: nil) : nil
        }
        guard record.recordType == WireRecord.shareRecordType else {
            guard !isShareName else {
                throw CloudError(
                    .invalidArguments, "operations[\(index)]: the record name \(ZoneShare.recordName) is the zone's share; its recordType is \(WireRecord.shareRecordType). Nothing was applied.",
                    recordName: record.recordName)
            }
            return nil
        }
        guard isShareName else {
            throw CloudError(
                .invalidArguments,
                "operations[\(index)]: this server keeps zone-wide shares only: name the share record \(ZoneShare.recordName) (record shares, with forRecord or a root record's share, are not served). Nothing was applied.",
                recordName: record.recordName)
        }
        let publicPermission = try permission(record.publicPermission ?? "NONE", "operations[\(index)].record.publicPermission")
        var invitations: [ShareSave.Invitation] = []
        for (p, participant) in (record.participants ?? []).enumerated() {
            let what = "operations[\(index)].record.participants[\(p)]"
            guard participant.type?.uppercased() != ShareParticipantType.owner.rawValue else { continue }
            let identity = participant.userIdentity
            let user = identity?.userRecordName ?? identity?.lookupInfo?.userRecordName ?? identity?.lookupInfo?.emailAddress.flatMap(userName(fromEmail:))
            guard let user else {
                throw CloudError(
                    .invalidArguments,
                    "\(what) names no user: give userIdentity.lookupInfo with an emailAddress (NAME@syncscope.example) or a userRecordName. Nothing was applied.")
            }
            var removed = false
            if let status = participant.acceptanceStatus {
                guard let parsed = ShareAcceptanceStatus(appleName: status) else {
                    throw CloudError(.invalidArguments, "\(what).acceptanceStatus is '\(status)'; it is PENDING (or INVITED), ACCEPTED or REMOVED. Nothing was applied.")
                }
                removed = parsed == .removed
            }
            invitations.append(ShareSave.Invitation(user: user, permission: try permission(participant.permission ?? "READ_ONLY", "\(what).permission"), removed: removed))
        }
        return ShareChange(index: index, save: ShareSave(publicPermission: publicPermission, invitations: invitations))
    }

    private static func permission(_ text: String, _ what: String) throws(CloudError) -> SharePermission {
        guard let permission = SharePermission(rawValue: text.uppercased()) else {
            throw CloudError(.invalidArguments, "\(what) is '\(text)'; it is NONE, READ_ONLY or READ_WRITE. Nothing was applied.")
        }
        return permission
    }

    /// The user an e-mail address of this server names (``emailAddress(of:)``'s inverse).
    private static func userName(fromEmail email: String) -> String? {
        let suffix = emailAddress(of: "")
        guard email.lowercased().hasSuffix(suffix.lowercased()) else { return nil }
        let name = email.dropLast(suffix.count)
        return name.isEmpty ? nil : String(name)
    }

    /// Applies a plan's share changes around its records: checked before
    /// anything is applied, saved after the share record itself is.
    func applyShareChanges(_ plan: ModifyRecordsPlan, _ db: DatabaseID, records: () throws(CloudError) -> [Result<RecordOperationResult, CloudError>]) throws(CloudError) -> [Result<RecordOperationResult, CloudError>] {
        for change in plan.shares { try core.engine.checkZoneShare(caller: plan.caller, database: db, zoneID: plan.zoneID, change.save) }
        let results = try records()
        for change in plan.shares {
            guard change.index < results.count, case .success = results[change.index] else { continue }
            if let save = change.save {
                try core.engine.saveZoneShare(caller: plan.caller, database: db, zoneID: plan.zoneID, save)
            } else {
                try core.engine.deleteZoneShare(caller: plan.caller, database: db, zoneID: plan.zoneID)
            }
        }
        return results
    }

    /// A share record with its share keys (participants, owner, the
    /// caller's participant, public permission, short GUID, URL); any other record as it is.
    package func withShareKeys(_ wire: WireRecord, caller: Caller, _ db: DatabaseID, zoneID: RecordZoneID) -> WireRecord {
        guard wire.recordType == WireRecord.shareRecordType, wire.recordName == ZoneShare.recordName else { return wire }
        return shareKeys(of: zoneID, caller: caller, db)(wire)
    }

    /// What adds the share keys to a `records/lookup` answer: the share is
    /// read now (under the lock) when the results hold a share record, and
    /// added when the answer is worded; any other answer is left as it is.
    package func shareKeysFill(
        _ results: [Result<Record, CloudError>], caller: Caller, _ db: DatabaseID, zoneID: RecordZoneID
    ) -> @Sendable (WireRecord) -> WireRecord {
        let hasShare = results.contains { result in
            if case .success(let record) = result { record.recordType == WireRecord.shareRecordType } else { false }
        }
        guard hasShare else { return { $0 } }
        return shareKeys(of: zoneID, caller: caller, db)
    }

    /// Adds the share keys of `zoneID`'s share (read now) to its share record.
    private func shareKeys(of zoneID: RecordZoneID, caller: Caller, _ db: DatabaseID) -> @Sendable (WireRecord) -> WireRecord {
        guard let share = core.engine.zoneShare(caller: caller, database: db, zoneID: zoneID) else { return { $0 } }
        let owner = zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName ? caller.user : zoneID.ownerName
        let url = shareURL(share.shortGUID)
        return { wire in
            guard wire.recordType == WireRecord.shareRecordType, wire.recordName == ZoneShare.recordName else { return wire }
            var filled = Self.withShareKeys(wire, share, owner: owner, caller: caller.user)
            filled.url = url
            return filled
        }
    }

    private static func withShareKeys(_ wire: WireRecord, _ share: ZoneShare, owner: String, caller: String) -> WireRecord {
        var copy = wire
        let ownerParticipant = WireShareParticipant(
            participantId: owner, userIdentity: participantIdentity(owner), permission: SharePermission.readWrite.rawValue,
            acceptanceStatus: ShareAcceptanceStatus.accepted.rawValue, type: ShareParticipantType.owner.rawValue)
        let others = share.participants.map { p in
            WireShareParticipant(
                participantId: p.user, userIdentity: participantIdentity(p.user), permission: p.permission.rawValue,
                acceptanceStatus: p.acceptanceStatus.rawValue, type: p.type.rawValue)
        }
        copy.participants = [ownerParticipant] + others
        copy.owner = ownerParticipant
        copy.currentUserParticipant = caller == owner ? ownerParticipant : others.first { $0.participantId == caller }
        copy.publicPermission = share.publicPermission.rawValue
        copy.shortGUID = share.shortGUID
        return copy
    }

    private static func participantIdentity(_ user: String) -> WireShareParticipant.Identity {
        let identity = identity(user)
        return WireShareParticipant.Identity(userRecordName: user, lookupInfo: identity.lookupInfo, nameComponents: identity.nameComponents)
    }

    /// A share's URL on this server: `{base}/share/{shortGUID}`; its short
    /// GUID is what `records/resolve` and `records/accept` take.
    func shareURL(_ shortGUID: String) -> String { "\(baseURL)/share/\(shortGUID)" }

    // MARK: records/resolve and records/accept

    /// `records/resolve` (`accepting` false) and `records/accept`.
    package func resolveShares(_ call: APICall, _ arguments: RouteArguments, accepting: Bool) throws(CloudError) -> APIAnswer {
        let caller = try requireUser(call, accepting ? "Accepting a share" : "Resolving a share")
        let request = try decode(WireShareGUIDsRequest.self, call)
        try checkCount(request.shortGUIDs.count, "short GUIDs")
        let db = arguments.database
        var changed = false
        let results: [WireResult<WireShareInfo>] = request.shortGUIDs.map { item in
            do throws(CloudError) {
                let resolution = accepting
                    ? try core.engine.acceptShare(caller: caller, database: db, shortGUID: item.value)
                    : try core.engine.resolveShare(caller: caller, database: db, shortGUID: item.value)
                if accepting { changed = true }
                return .success(info(resolution, caller: caller.user, db))
            } catch {
                return .failure(WireError(error))
            }
        }
        return try encode(WireShareInfosResponse(results: results), changed: changed)
    }

    private func info(_ resolution: ShareResolution, caller: String, _ db: DatabaseID) -> WireShareInfo {
        let owner = resolution.zoneID.ownerName
        var share = resolution.shareRecord.map(WireRecord.init) ?? WireRecord(recordName: ZoneShare.recordName, recordType: WireRecord.shareRecordType)
        share = Self.withShareKeys(share, resolution.share, owner: owner, caller: caller)
        share.url = shareURL(resolution.share.shortGUID)
        return WireShareInfo(
            shortGUID: resolution.share.shortGUID, containerIdentifier: db.container, environment: db.environment.rawValue,
            databaseScope: owner == caller ? "PRIVATE" : "SHARED", zoneID: WireZoneID(resolution.zoneID), share: share,
            ownerIdentity: Self.identity(owner), participantStatus: resolution.caller?.acceptanceStatus.rawValue,
            participantPermission: resolution.caller?.permission.rawValue, participantType: resolution.caller?.type.rawValue)
    }
}
