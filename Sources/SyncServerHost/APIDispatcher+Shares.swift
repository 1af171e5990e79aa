import Foundation
import SyncCore
import SyncWire
import SyncServer

/// `CKShare` over Web Services: a zone-wide share saved with `records/modify`
/// (the record `cloudkit.zoneshare` of type `cloudkit.share`, with
/// `participants` and `publicPermission`), found with `records/resolve` and
/// accepted with `records/accept` by its short GUID.
/// `CKShare` over Web Services: a share saved with `records/modify` (a record
/// of type `cloudkit.share` with `participants` and `publicPermission`: the
/// record `cloudkit.zoneshare` shares its zone, any other share record
/// shares its root record, named by `forRecord` or by the root's `share`
/// reference in the same request, and the root's hierarchy), found with
/// `records/resolve` and accepted with `records/accept` by its short GUID.
extension APIDispatcher {
    /// One share save of a `records/modify`: operation `index` saves the
    /// share record `shareName` (for the root record `rootRecordName`, when a record share).
    package struct ShareChange: Sendable {
        package var index: Int
        package var shareName: String
        package var rootRecordName: String?
        package var save: ShareSave
    }

    /// The share saves of a request's operations (deleting a share record
    /// is an ordinary delete: the engine drops its share); throws for a
    /// malformed share record or participant.
    static func shareChanges(_ operations: [WireRecordsModifyRequest.Operation], _ planned: [RecordOperation]) throws(CloudError) -> [ShareChange] {
        var changes: [ShareChange] = []
        for (index, operation) in operations.enumerated() where !planned[index].type.isDelete {
            guard let change = try shareChange(operation, index: index, operations: operations) else { continue }
            changes.append(change)
        }
        return changes
    }

    private static func shareChange(
        _ operation: WireRecordsModifyRequest.Operation, index: Int, operations: [WireRecordsModifyRequest.Operation]
    ) throws(CloudError) -> ShareChange? {
        let record = operation.record
        let isZoneShareName = record.recordName == ZoneShare.recordName
        guard record.recordType == WireRecord.shareRecordType else {
            guard !isZoneShareName else {
                throw CloudError(
                    .invalidArguments, "operations[\(index)]: the record name \(ZoneShare.recordName) is the zone's share; its recordType is \(WireRecord.shareRecordType). Nothing was applied.",
                    recordName: record.recordName)
            }
            return nil
        }
        guard !record.recordName.isEmpty else {
            throw CloudError(
                .invalidArguments,
                "operations[\(index)]: a share record needs its recordName (\(ZoneShare.recordName) for a zone-wide share, any other name for a record share). Nothing was applied.")
        }
        var root: String?
        if !isZoneShareName {
            root = record.forRecord?.recordName
                ?? operations.first { $0.record.recordType != WireRecord.shareRecordType && $0.record.share?.recordName == record.recordName }?.record.recordName
        }
        return ShareChange(index: index, shareName: record.recordName, rootRecordName: root, save: try shareSave(record, index: index))
    }

    private static func shareSave(_ record: WireRecord, index: Int) throws(CloudError) -> ShareSave {
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
        return ShareSave(publicPermission: publicPermission, invitations: invitations)
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

    /// Applies a plan's share saves around its records: checked before
    /// anything is applied, saved after the share record (and its root) is.
    func applyShareChanges(_ plan: ModifyRecordsPlan, _ db: DatabaseID, records: () throws(CloudError) -> [Result<RecordOperationResult, CloudError>]) throws(CloudError) -> [Result<RecordOperationResult, CloudError>] {
        var saved = Set<String>()
        for operation in plan.operations where !operation.type.isDelete { saved.insert(operation.record.recordID.recordName) }
        for change in plan.shares {
            try core.engine.checkShare(
                caller: plan.caller, database: db, zoneID: plan.zoneID, shareName: change.shareName, rootRecordName: change.rootRecordName,
                rootsSavedAlongside: saved, change.save)
        }
        var results = try records()
        for change in plan.shares {
            guard change.index < results.count, case .success = results[change.index] else { continue }
            let share = try core.engine.saveShare(
                caller: plan.caller, database: db, zoneID: plan.zoneID, shareName: change.shareName, rootRecordName: change.rootRecordName, change.save)
            // A root saved in the same request answers its new share reference.
            for (index, result) in results.enumerated() {
                guard case .success(.saved(var root)) = result, root.recordID.recordName == share.rootRecordName else { continue }
                root.share = RecordReference(recordName: change.shareName)
                results[index] = .success(.saved(root))
            }
        }
        return results
    }

    /// A share record with its share keys (participants, owner, the
    /// caller's participant, public permission, short GUID, URL); any other record as it is.
    package func withShareKeys(_ wire: WireRecord, caller: Caller, _ db: DatabaseID, zoneID: RecordZoneID) -> WireRecord {
        guard wire.recordType == WireRecord.shareRecordType,
              let share = core.engine.share(caller: caller, database: db, zoneID: zoneID, named: wire.recordName)
        else { return wire }
        var filled = Self.withShareKeys(wire, share, owner: owner(of: zoneID, caller: caller), caller: caller.user)
        filled.url = shareURL(share.shortGUID)
        return filled
    }

    /// What adds the share keys to the share records among `records` (of
    /// any zones): the shares are read now (under the lock), and added when
    /// the answer is worded; an answer without share records is left as it is.
    package func shareKeysFill(_ records: [Record], caller: Caller, _ db: DatabaseID) -> @Sendable (WireRecord) -> WireRecord {
        guard core.engine.hasShares else { return { $0 } }
        var filled: [String: WireRecord] = [:]
        for record in records where record.recordType == WireRecord.shareRecordType {
            guard let tag = record.recordChangeTag else { continue }
            filled[tag] = withShareKeys(WireRecord(record), caller: caller, db, zoneID: record.recordID.zoneID)
        }
        guard !filled.isEmpty else { return { $0 } }
        return { [filled] wire in
            guard wire.recordType == WireRecord.shareRecordType, let tag = wire.recordChangeTag, var keys = filled[tag] else { return wire }
            keys.fields = wire.fields
            keys.zoneID = wire.zoneID
            return keys
        }
    }

    /// ``shareKeysFill(_:caller:_:)`` for the records of a `records/lookup`.
    package func shareKeysFill(_ results: [Result<Record, CloudError>], caller: Caller, _ db: DatabaseID) -> @Sendable (WireRecord) -> WireRecord {
        guard core.engine.hasShares else { return { $0 } }
        return shareKeysFill(results.compactMap { if case .success(let record) = $0 { record } else { nil } }, caller: caller, db)
    }

    /// ``shareKeysFill(_:caller:_:)`` for the records of a `changes/zone`.
    package func shareKeysFill(_ results: [Result<ZoneChangesBatch, CloudError>], caller: Caller, _ db: DatabaseID) -> @Sendable (WireRecord) -> WireRecord {
        guard core.engine.hasShares else { return { $0 } }
        var records: [Record] = []
        for case .success(let batch) in results {
            for case .changed(let record) in batch.changes where record.recordType == WireRecord.shareRecordType { records.append(record) }
        }
        return shareKeysFill(records, caller: caller, db)
    }

    private func owner(of zoneID: RecordZoneID, caller: Caller) -> String {
        zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName ? caller.user : zoneID.ownerName
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

    // MARK: The share URL

    /// `GET /share/{shortGUID}` (our extension; Apple's share URL opens the
    /// app): which share the URL is and how to accept it, to anyone holding it.
    package func sharePage(shortGUID: String) -> APIAnswer {
        guard let (container, environment, resolution) = core.engine.findShare(shortGUID: shortGUID) else {
            return .notFound("No share has the short GUID '\(shortGUID)'.")
        }
        let base = "/database/1/\(container)/\(environment.rawValue)/public/records/"
        let owner = resolution.zoneID.ownerName
        let page = WireSharePage(
            shortGUID: shortGUID, url: shareURL(shortGUID), containerIdentifier: container, environment: environment.rawValue,
            zoneID: WireZoneID(resolution.zoneID), kind: resolution.share.rootRecordName == nil ? "zone" : "record",
            rootRecordName: resolution.share.rootRecordName, ownerIdentity: Self.identity(owner), publicPermission: resolution.share.publicPermission.rawValue,
            resolvePath: base + "resolve", acceptPath: base + "accept",
            requestBody: WireShareGUIDsRequest(shortGUIDs: [.init(value: shortGUID, shouldFetchRootRecord: resolution.share.rootRecordName == nil ? nil : true)]),
            howToAccept: resolution.share.publicPermission == .none
                ? "\(owner) shares this with invited users: signed in as one of them, POST requestBody to acceptPath (resolvePath first to see the share)."
                : "Anyone signed in may accept: POST requestBody to acceptPath (resolvePath first to see the share).")
        do {
            return APIAnswer(body: try WireJSON.encode(page))
        } catch {
            return .error(error)
        }
    }

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
                // shouldFetchRootRecord: the root with rootRecordDesiredKeys (none: every field).
                let rootKeys = item.shouldFetchRootRecord == true ? item.rootRecordDesiredKeys ?? [] : nil
                let resolution = accepting
                    ? try core.engine.acceptShare(caller: caller, database: db, shortGUID: item.value, rootRecordDesiredKeys: rootKeys)
                    : try core.engine.resolveShare(caller: caller, database: db, shortGUID: item.value, rootRecordDesiredKeys: rootKeys)
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
        var share = resolution.shareRecord.map(WireRecord.init) ?? WireRecord(recordName: resolution.shareRecordName, recordType: WireRecord.shareRecordType)
        share = Self.withShareKeys(share, resolution.share, owner: owner, caller: caller)
        share.url = shareURL(resolution.share.shortGUID)
        return WireShareInfo(
            shortGUID: resolution.share.shortGUID, containerIdentifier: db.container, environment: db.environment.rawValue,
            databaseScope: owner == caller ? "PRIVATE" : "SHARED", zoneID: WireZoneID(resolution.zoneID), share: share,
            rootRecord: resolution.rootRecord.map { withDownloadURLs(WireRecord($0), db) }, ownerIdentity: Self.identity(owner), participantStatus: resolution.caller?.acceptanceStatus.rawValue,
            participantPermission: resolution.caller?.permission.rawValue, participantType: resolution.caller?.type.rawValue)
    }
}
