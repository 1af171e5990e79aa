import Foundation
import SyncCore

/// The Swift a client writes for each step, with CloudKit's own API
/// (`CKFetchRecordZoneChangesOperation`, `CKModifyRecordsOperation` and its
/// save policy, `CKSyncEngine`, the `CKError.changeTokenExpired` branch):
/// what the lesson's code pane shows. Generated from the step where the
/// mapping is mechanical; a step's own `code:` wins.
extension Step {
    /// The step's code: the lesson's (`code:`), else the one made from the step, else `nil` (a check, narration).
    public var clientCode: StepCode? { code ?? kind.generatedCode }
}

extension StepKind {
    /// The code made from the step alone, when the mapping is mechanical.
    public var generatedCode: StepCode? {
        switch self {
        case .say, .ask, .expect, .advance, .signIn:
            return nil
        case .deploySchema:
            return StepCode(title: "Deploying the schema to production", fixed: """
                // Not app code: a step of the release. In CloudKit Console, Schema →
                // Deploy Schema Changes, or from a checked-in schema file:
                //   xcrun cktool export-schema --environment development --output-file schema.ckdb
                //   xcrun cktool import-schema --environment production --file schema.ckdb
                // Until then, production refuses the record types and fields only development has.
                """)
        case .importSchema(let a):
            return StepCode(title: "cktool import-schema", fixed: """
                // The team's schema file, kept in git, applied as the release does:
                //   xcrun cktool import-schema --environment \(a.environment) --file schema.ckdb
                """)
        case .query(let a):
            let predicate = a.filter.isEmpty
                ? "NSPredicate(value: true)"
                : "NSPredicate(format: \"" + a.filter.map { "\($0.name) == %@" }.joined(separator: " AND ") + "\", "
                    + a.filter.map { Self.literal($0.value) }.joined(separator: ", ") + ")"
            let sorts = a.sortBy.map { "NSSortDescriptor(key: \(Self.quoted($0)), ascending: true)" }
            return StepCode(title: "CKQueryOperation", fixed: ([
                "let query = CKQuery(recordType: \(Self.quoted(a.recordType)), predicate: \(predicate))",
            ] + (sorts.isEmpty ? [] : ["query.sortDescriptors = [\(sorts.joined(separator: ", "))]"]) + [
                "let (matches, _) = try await database.records(matching: query, inZoneWith: \(Self.zoneID(a.zone)))",
                "// In production each filtered field needs QUERYABLE and each sort field SORTABLE,",
                "// or CloudKit answers an invalidArguments error naming the field.",
            ]).joined(separator: "\n"))
        case .createZone(let a):
            return StepCode(title: "CKModifyRecordZonesOperation", fixed: """
                let zone = CKRecordZone(zoneName: \(Self.quoted(a.zone.zoneName)))
                let operation = CKModifyRecordZonesOperation(recordZonesToSave: [zone], recordZoneIDsToDelete: nil)
                operation.modifyRecordZonesResultBlock = { result in
                    if case .failure(let error) = result { handle(error) }
                }
                container.\(Self.database(a.database)).add(operation)
                """)
        case .deleteZone(let a):
            return StepCode(title: "CKModifyRecordZonesOperation", fixed: """
                let zoneID = \(Self.zoneID(a.zone))
                let operation = CKModifyRecordZonesOperation(recordZonesToSave: nil, recordZoneIDsToDelete: [zoneID])
                container.\(Self.database(a.database)).add(operation)
                // Other devices learn it from their database fetch:
                // recordZoneWithIDWasDeletedBlock, reason .deleted. Drop the zone's cache and token.
                """)
        case .purgeZone:
            return StepCode(title: "CKFetchDatabaseChangesOperation: a purged zone", fixed: """
                // The user deleted the app's data from Settings. Devices hear it here:
                operation.recordZoneWithIDWasPurgedBlock = { zoneID in
                    cache.deleteZone(zoneID)
                    tokens[zoneID] = nil
                    pending.removeAll { $0.zoneID == zoneID }   // do not upload it again
                }
                """)
        case .encryptedDataReset:
            return StepCode(title: "CKFetchDatabaseChangesOperation: an encrypted-data reset", fixed: """
                // The user reset their encrypted data: every private zone is gone.
                operation.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { zoneID in
                    tokens[zoneID] = nil
                    // Unlike a purge, the user wants their data: upload the local copy again.
                    reupload(cache.records(in: zoneID), to: zoneID)
                }
                """)
        case .shareZone(let a):
            return StepCode(title: "CKShare of a whole zone", fixed: """
                let share = CKShare(recordZoneID: \(Self.zoneID(a.zone)))
                share[CKShare.SystemFieldKey.title] = \(Self.quoted(a.zone.zoneName))
                let operation = CKModifyRecordsOperation(recordsToSave: [share], recordIDsToDelete: nil)
                container.privateCloudDatabase.add(operation)
                // Participants (\(a.participants.joined(separator: ", "))) accept with CKAcceptSharesOperation.
                """)
        case .revokeShare(let a):
            return StepCode(title: "CKShare: removing participants", fixed: """
                for participant in share.participants where [\(a.participants.map(Self.quoted).joined(separator: ", "))].contains(name(of: participant)) {
                    share.removeParticipant(participant)
                }
                container.privateCloudDatabase.add(CKModifyRecordsOperation(recordsToSave: [share], recordIDsToDelete: nil))
                """)
        case .saveShare(let a):
            return StepCode(title: "CKShare of a whole zone, with participants", fixed: ([
                "let share = CKShare(recordZoneID: \(Self.zoneID(a.zone)))",
                "share.publicPermission = \(Self.sharePermission(a.publicPermission))",
            ] + a.participants.flatMap { p in [
                "let \(p.user) = try await container.shareParticipant(",
                "    forUserRecordID: CKRecord.ID(recordName: \(Self.quoted(p.user))))",
                "\(p.user).permission = \(Self.sharePermission(p.permission))",
                "share.addParticipant(\(p.user))",
            ] } + [
                "_ = try await container.privateCloudDatabase",
                "    .modifyRecords(saving: [share], deleting: [])",
                "// Send share.url to the participants (Messages, Mail,",
                "// UICloudSharingController).",
            ]).joined(separator: "\n"))
        case .resolveShare:
            return StepCode(title: "CKFetchShareMetadataOperation", fixed: """
                // The invitee opens the share's URL; the system hands the app its metadata:
                let metadata = try await container.shareMetadata(
                    for: shareURL, shouldFetchRootRecord: false)
                // metadata.share.owner: who shares it; metadata.participantStatus:
                // .pending until accepted, metadata.participantPermission: .readWrite
                """)
        case .acceptShare:
            return StepCode(title: "CKAcceptSharesOperation", fixed: """
                // In the scene delegate: windowScene(_:userDidAcceptCloudKitShareWith:)
                _ = try await container.accept(metadata)
                // The zone is now in the invitee's sharedCloudDatabase: fetch its
                // database changes to find it, then the zone's changes.
                """)
        case .removeParticipant(let a):
            return StepCode(title: "CKShare: removing participants", fixed: """
                let removed: Set = [\(a.participants.map { Self.quoted($0.user) }.joined(separator: ", "))]
                for participant in share.participants {
                    let name = participant.userIdentity.userRecordID?.recordName ?? ""
                    if removed.contains(name) { share.removeParticipant(participant) }
                }
                _ = try await container.privateCloudDatabase
                    .modifyRecords(saving: [share], deleting: [])
                // Their next fetch of sharedCloudDatabase's changes reports
                // the zone deleted.
                """)
        case .save(let a):
            let fields = a.fields.prefix(3).map { "record[\(Self.quoted($0.name))] = \(Self.literal($0.value))" }
            return StepCode(title: "CKSyncEngine: a change to send", fixed: ([
                "// Save locally, then tell the sync engine what to send:",
                "let recordID = CKRecord.ID(recordName: \(Self.quoted(a.recordName)), zoneID: \(Self.zoneID(a.zone)))",
                "syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(recordID)])",
                "",
                "// Later, in nextRecordZoneChangeBatch, it asks for the record:",
                "let record = cache.record(for: recordID) ?? CKRecord(recordType: \(Self.quoted(a.recordType ?? "Note")), recordID: recordID)",
            ] + fields).joined(separator: "\n"))
        case .delete(let a):
            return StepCode(title: "CKSyncEngine: a deletion to send", fixed: """
                let recordID = CKRecord.ID(recordName: \(Self.quoted(a.recordName)), zoneID: \(Self.zoneID(a.zone)))
                cache.delete(recordID)
                syncEngine.state.add(pendingRecordZoneChanges: [.deleteRecord(recordID)])
                """)
        case .send(_, let merge):
            return StepCode(title: "CKModifyRecordsOperation · savePolicy", fixed: """
                let op = CKModifyRecordsOperation(
                    recordsToSave: pendingSaves, recordIDsToDelete: pendingDeletions)
                op.savePolicy = .ifServerRecordUnchanged  // never overwrite a newer one
                op.perRecordSaveBlock = { recordID, result in
                    switch result {
                    case .success(let saved):
                        cache.save(saved)  // its new change tag
                    case .failure(let e as CKError) where e.code == .serverRecordChanged:
                        \(merge ? "resend(merge(recordID, into: e.serverRecord!))" : "keepPending(recordID)  // no merge: still queued")
                    case .failure(let error): handle(error)
                    }
                }
                container.privateCloudDatabase.add(op)
                """)
        case .fetch(let a):
            switch a.target {
            case .databaseChanges:
                return StepCode(title: "CKFetchDatabaseChangesOperation", fixed: """
                    let previous: CKServerChangeToken? = \(Self.token(a.token, of: "databaseToken"))
                    let op = CKFetchDatabaseChangesOperation(previousServerChangeToken: previous)
                    op.recordZoneWithIDChangedBlock = { changedZones.insert($0) }
                    op.recordZoneWithIDWasDeletedBlock = { cache.deleteZone($0) }
                    op.changeTokenUpdatedBlock = { databaseToken = $0 }
                    op.fetchDatabaseChangesResultBlock = { result in
                        switch result {
                        case .success(let (token, moreComing)):
                            databaseToken = token  // then fetch the changed zones
                            if moreComing { fetchDatabaseChangesAgain() }
                        case .failure(let e as CKError) where e.code == .changeTokenExpired:
                            databaseToken = nil  // start over from nil
                        case .failure(let error): handle(error)
                        }
                    }
                    container.\(Self.database(a.database)).add(op)
                    """)
            case .zoneChanges(let zones):
                let zone = zones.first.map(Self.zoneID) ?? "zoneID"
                var configuration = ["let config = CKFetchRecordZoneChangesOperation.ZoneConfiguration()",
                                     "config.previousServerChangeToken = \(Self.token(a.token, of: "tokens[zoneID]"))"]
                if let limit = a.resultsLimit { configuration.append("config.resultsLimit = \(limit)   // records a batch") }
                if let keys = a.desiredKeys { configuration.append("config.desiredKeys = [\(keys.map(Self.quoted).joined(separator: ", "))]") }
                return StepCode(title: "CKFetchRecordZoneChangesOperation", fixed: (["let zoneID = \(zone)"] + configuration + [
                    "let op = CKFetchRecordZoneChangesOperation(",
                    "    recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: config])",
                    "op.recordWasChangedBlock = { _, result in",
                    "    if case .success(let record) = result { cache.save(record) }",
                    "}",
                    "op.recordWithIDWasDeletedBlock = { id, _ in cache.delete(id) }",
                    "op.recordZoneFetchResultBlock = { zoneID, result in",
                    "    switch result {",
                    "    case .success(let (token, _, moreComing)):",
                    "        cache.commit(token, for: zoneID)  // with the records",
                    "        if moreComing { fetchAgain(from: token) }",
                    "    case .failure(let e as CKError) where e.code == .changeTokenExpired:",
                    "        tokens[zoneID] = nil  // refetch from nil, then reconcile",
                    "    case .failure(let error): handle(error)",
                    "    }",
                    "}",
                    "container.\(Self.database(a.database)).add(op)",
                ]).joined(separator: "\n"))
            }
        case .sync:
            return StepCode(title: "CKSyncEngine: send, then fetch", fixed: """
                try await syncEngine.sendChanges()    // the pending saves and deletions
                try await syncEngine.fetchChanges()   // database changes, then each changed zone
                // The delegate hears each part, in order:
                func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
                    switch event {
                    case .stateUpdate(let update): store.save(update.stateSerialization)   // persist it, every time
                    case .fetchedRecordZoneChanges(let changes): cache.apply(changes)
                    case .sentRecordZoneChanges(let sent): cache.markSent(sent)
                    default: break
                    }
                }
                """)
        case .subscribe(let s):
            let make: String
            switch s.type {
            case .database: make = "let subscription = CKDatabaseSubscription(subscriptionID: \(Self.quoted(s.subscriptionID)))"
            case .recordZone:
                make = "let subscription = CKRecordZoneSubscription(zoneID: \(s.zone.map(Self.zoneID) ?? "zoneID"), subscriptionID: \(Self.quoted(s.subscriptionID)))"
            case .query:
                make = "let subscription = CKQuerySubscription(recordType: \(Self.quoted(s.recordType ?? "Note")), predicate: predicate, subscriptionID: \(Self.quoted(s.subscriptionID)), options: [.firesOnRecordCreation, .firesOnRecordUpdate])"
            }
            return StepCode(title: "CKModifySubscriptionsOperation", fixed: """
                \(make)
                let info = CKSubscription.NotificationInfo()
                info.shouldSendContentAvailable = true   // a silent push: the app fetches
                subscription.notificationInfo = info
                let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [subscription], subscriptionIDsToDelete: nil)
                container.\(Self.database(s.database)).add(operation)
                """)
        case .unsubscribe(let a):
            return StepCode(title: "CKModifySubscriptionsOperation", fixed: """
                let operation = CKModifySubscriptionsOperation(subscriptionsToSave: nil, subscriptionIDsToDelete: [\(Self.quoted(a.subscriptionID))])
                container.\(Self.database(a.database)).add(operation)
                """)
        case .online, .offline:
            return StepCode(title: "The network comes and goes", fixed: """
                // Offline, operations fail with CKError.networkUnavailable; keep the change pending.
                // The push service holds only the latest notification for the device:
                // back online, fetch from the cached token, not from the pushes.
                """)
        case .compact:
            return StepCode(title: "CKError.changeTokenExpired", fixed: """
                // The app does not compact: CloudKit keeps change history only so long.
                // What it must handle is the next fetch from an older token:
                case .failure(let error as CKError) where error.code == .changeTokenExpired:
                    tokens[zoneID] = nil   // fetch the zone from nil; a cached record it
                                           // does not return was deleted meanwhile
                """)
        case .burst(let a):
            return StepCode(title: "CKModifyRecordsOperation in batches", fixed: """
                for batch in records.chunked(into: 400) {   // at most 400 items a request
                    let operation = CKModifyRecordsOperation(recordsToSave: batch, recordIDsToDelete: nil)
                    operation.savePolicy = .ifServerRecordUnchanged
                    container.\(Self.database(a.database)).add(operation)
                }
                """)
        case .modifyRecords(let a):
            return StepCode(title: "CKModifyRecordsOperation, by hand", fixed: """
                let operation = CKModifyRecordsOperation(recordsToSave: Array(batch.prefix(400)), recordIDsToDelete: nil)
                operation.modifyRecordsResultBlock = { result in
                    guard case .failure(let error as CKError) = result else { return }
                    switch error.code {
                    case .zoneNotFound: createZone(then: retry)      // create the zone first
                    case .limitExceeded: split(batch).forEach(send)   // fewer records a request
                    default: handle(error)
                    }
                }
                container.\(Self.database(a.database)).add(operation)
                """, wrong: """
                let operation = CKModifyRecordsOperation(recordsToSave: batch, recordIDsToDelete: nil)
                container.\(Self.database(a.database)).add(operation)   // no result block: errors vanish
                """)
        case .checkAccount:
            return StepCode(title: "CKContainer.fetchUserRecordID", fixed: """
                let userID = try await container.userRecordID()
                if userID.recordName != cache.owner {
                    cache.deleteEverything()   // tokens, records, pending changes: another account's
                    cache.owner = userID.recordName
                }
                // …and again on every .CKAccountChanged notification.
                """)
        case .fault:
            return StepCode(title: "Retrying what CloudKit asks you to retry", fixed: """
                case .failure(let error as CKError):
                    if let delay = error.retryAfterSeconds {   // requestRateLimited, zoneBusy, serviceUnavailable
                        try await Task.sleep(for: .seconds(delay))
                        retry()
                    }
                """)
        case .clearFaults:
            return nil
        }
    }

    /// `.readWrite` for `READ_WRITE`: CKShare.ParticipantPermission's case.
    static func sharePermission(_ name: String) -> String {
        switch name {
        case "READ_WRITE": ".readWrite"
        case "READ_ONLY": ".readOnly"
        default: ".none"
        }
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func database(_ scope: DatabaseScope) -> String {
        switch scope {
        case .private: "privateCloudDatabase"
        case .shared: "sharedCloudDatabase"
        case .public: "publicCloudDatabase"
        }
    }

    static func zoneID(_ zone: ZoneRef) -> String {
        if let owner = zone.ownerName {
            return "CKRecordZone.ID(zoneName: \(quoted(zone.zoneName)), ownerName: \(quoted(owner)))"
        }
        return "CKRecordZone.ID(zoneName: \(quoted(zone.zoneName)))"
    }

    static func token(_ choice: TokenChoice, of cached: String) -> String {
        switch choice {
        case .cached: cached
        case .noToken: "nil   // no token: every record, and no deletions"
        case .captured(let name): "\(name)Token   // the token saved as \(quoted(name))"
        }
    }

    static func literal(_ value: FieldValue) -> String {
        switch value {
        case .string(let s): quoted(s)
        case .int64(let n): "\(n) as Int64"
        case .double(let d): "\(d)"
        default: "/* \(value.displayString) */ value"
        }
    }
}
