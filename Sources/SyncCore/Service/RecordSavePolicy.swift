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
