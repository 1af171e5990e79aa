import Foundation
import SyncCore

/// One record as it was before and after a commit.
public struct CommittedChange: Sendable {
    public var recordID: RecordID
    public var recordType: String
    /// `nil`: the record did not exist before.
    public var before: Record?
    /// `nil`: the record was deleted.
    public var after: Record?
}
