import SyncCore

/// CloudKit's `CKModifyRecordsOperation`, for its save policies (the twin's databases take
/// them through `modifyRecords(saving:deleting:savePolicy:atomically:)`).
public enum CKModifyRecordsOperation {
    /// What a save may do when the server's record changed since the client's copy.
    public enum RecordSavePolicy: Int, Sendable, Hashable {
        /// Save only if the record's change tag is the server's; otherwise `serverRecordChanged`
        /// with the server's record. Sends the changed keys.
        case ifServerRecordUnchanged = 0
        /// Write the changed keys over the server's record, whatever its change tag.
        case changedKeys = 2
        /// Replace every field of the server's record, whatever its change tag.
        case allKeys = 1
    }
}
