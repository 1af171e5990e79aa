import Foundation

/// The outcome of one successful `records/modify` item.
public enum RecordOperationResult: Sendable, Hashable {
    case saved(Record)
    case deleted(RecordID, recordType: String)
}
