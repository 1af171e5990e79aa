import Foundation

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
