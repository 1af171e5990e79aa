import Foundation
import SyncCore

/// A deleted record as a zone fetch reports it.
public struct DeletedRecord: Sendable, Hashable {
    public var recordID: RecordID
    public var recordType: String

    public init(recordID: RecordID, recordType: String) {
        self.recordID = recordID
        self.recordType = recordType
    }
}
