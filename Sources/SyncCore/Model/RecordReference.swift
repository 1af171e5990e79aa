import Foundation

/// A reference to another record.
public struct RecordReference: Sendable, Hashable {
    public var recordName: String
    /// `nil` means "the same zone as the record holding the reference".
    public var zoneID: RecordZoneID?
    public var action: ReferenceAction

    public init(recordName: String, zoneID: RecordZoneID? = nil, action: ReferenceAction = .none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }
}
