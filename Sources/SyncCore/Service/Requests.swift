import Foundation

/// What a record save may do when the server already has the record,
/// mirroring `CKModifyRecordsOperation.RecordSavePolicy`.
public enum RecordSavePolicy: String, Sendable, Hashable, Codable {
    /// Save only if the record's change tag matches the server's; otherwise
    /// fail with `serverRecordChanged`, carrying the server's record.
    case ifServerRecordUnchanged
    /// Write the given fields over the server's, whatever its change tag.
    case changedKeys
    /// Replace all of the server's fields with the given ones, whatever its change tag.
    case allKeys
}

/// The operation types of `records/modify`, as CloudKit Web Services names them.
public enum RecordOperationType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fails with `alreadyExists` if the record exists.
    case create
    /// Writes the given fields; needs the current change tag (a record with
    /// no tag that does not exist yet is created).
    case update
    /// Writes the given fields, no tag check.
    case forceUpdate
    /// Replaces all fields; needs the current change tag.
    case replace
    /// Replaces all fields, no tag check.
    case forceReplace
    /// Deletes; checks the change tag when one is given.
    case delete
    /// Deletes, no tag check.
    case forceDelete

    public var isDelete: Bool { self == .delete || self == .forceDelete }
    public var checksChangeTag: Bool { self == .update || self == .replace || self == .delete }
    public var replacesAllFields: Bool { self == .replace || self == .forceReplace || self == .create }
}

/// One item of a `records/modify` request.
public struct RecordOperation: Sendable, Hashable {
    public var type: RecordOperationType
    /// For deletions only the record ID (and change tag, when checked) matter.
    public var record: Record
    /// Fields this save removes (sent with the value `null`): an update keeps
    /// the server's other fields but drops these.
    public var removedFieldNames: [String]

    public init(type: RecordOperationType, record: Record, removedFieldNames: [String] = []) {
        self.type = type
        self.record = record
        self.removedFieldNames = removedFieldNames
    }

    /// A save with one of CloudKit's save policies.
    public static func save(_ record: Record, policy: RecordSavePolicy = .ifServerRecordUnchanged) -> RecordOperation {
        switch policy {
        case .ifServerRecordUnchanged: RecordOperation(type: .replace, record: record)
        case .changedKeys: RecordOperation(type: .forceUpdate, record: record)
        case .allKeys: RecordOperation(type: .forceReplace, record: record)
        }
    }

    /// A deletion; with `changeTag`, only if the server's record still has it.
    public static func delete(_ recordID: RecordID, recordType: String = "", changeTag: String? = nil) -> RecordOperation {
        RecordOperation(
            type: changeTag == nil ? .forceDelete : .delete,
            record: Record(recordID: recordID, recordType: recordType, recordChangeTag: changeTag)
        )
    }
}

/// The outcome of one successful `records/modify` item.
public enum RecordOperationResult: Sendable, Hashable {
    case saved(Record)
    case deleted(RecordID, recordType: String)
}

/// Why a zone left a database.
public enum ZoneDeletionReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app deleted it (or, in the shared database, the owner deleted it or stopped sharing it).
    case deleted
    /// The user deleted the app's data in Settings: do not upload it again.
    case purged
    /// The user reset their encrypted data: upload local data again.
    case encryptedDataReset
}

/// One entry of a database-changes answer.
public enum DatabaseChange: Sendable, Hashable {
    /// Created, shared in, or its records changed.
    case zoneChanged(RecordZoneID)
    case zoneRemoved(RecordZoneID, reason: ZoneDeletionReason)

    public var zoneID: RecordZoneID {
        switch self {
        case .zoneChanged(let id), .zoneRemoved(let id, _): id
        }
    }
}

/// One batch of `changes/database`.
public struct DatabaseChangesBatch: Sendable, Hashable {
    public var changes: [DatabaseChange]
    public var serverChangeToken: ServerChangeToken
    public var moreComing: Bool

    public init(changes: [DatabaseChange], serverChangeToken: ServerChangeToken, moreComing: Bool) {
        self.changes = changes
        self.serverChangeToken = serverChangeToken
        self.moreComing = moreComing
    }
}

/// What to fetch from one zone in `changes/zone`.
public struct ZoneChangesRequest: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var previousServerChangeToken: ServerChangeToken?
    /// `nil` or 0: the server's cap (400).
    public var resultsLimit: Int?
    /// `nil`: all fields; `[]`: none.
    public var desiredKeys: [String]?
    /// `nil`: records of every type; otherwise only these types (deletions
    /// included, by the type the record had). `[]`: no records, only the token.
    public var desiredRecordTypes: [String]?

    public init(
        zoneID: RecordZoneID,
        previousServerChangeToken: ServerChangeToken? = nil,
        resultsLimit: Int? = nil,
        desiredKeys: [String]? = nil,
        desiredRecordTypes: [String]? = nil
    ) {
        self.zoneID = zoneID
        self.previousServerChangeToken = previousServerChangeToken
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.desiredRecordTypes = desiredRecordTypes
    }
}

/// One entry of a zone-changes answer.
public enum RecordChange: Sendable, Hashable {
    /// The record in its latest state.
    case changed(Record)
    /// The record's latest change was its deletion.
    case deleted(RecordID, recordType: String)

    public var recordID: RecordID {
        switch self {
        case .changed(let record): record.recordID
        case .deleted(let id, _): id
        }
    }
}

/// One batch of one zone's changes.
public struct ZoneChangesBatch: Sendable, Hashable {
    public var zoneID: RecordZoneID
    /// Oldest change first; each record at most once.
    public var changes: [RecordChange]
    public var serverChangeToken: ServerChangeToken
    public var moreComing: Bool
    public var clientChangeTokenData: Data?

    public init(
        zoneID: RecordZoneID,
        changes: [RecordChange],
        serverChangeToken: ServerChangeToken,
        moreComing: Bool,
        clientChangeTokenData: Data? = nil
    ) {
        self.zoneID = zoneID
        self.changes = changes
        self.serverChangeToken = serverChangeToken
        self.moreComing = moreComing
        self.clientChangeTokenData = clientChangeTokenData
    }
}

/// A zone as `zones/list` reports it: its ID and the token for "now".
public struct ZoneListing: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var syncToken: ServerChangeToken?

    public init(zoneID: RecordZoneID, syncToken: ServerChangeToken?) {
        self.zoneID = zoneID
        self.syncToken = syncToken
    }
}
