import Foundation

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
