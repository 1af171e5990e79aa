import SyncCore

/// The device's app runs a `records/query` (`CKQueryOperation`) in one zone:
/// records of one type whose fields equal the filter's values, sorted by
/// the sort fields.
public struct QueryAction: Sendable, Equatable {
    public var device: String
    public var zone: ZoneRef
    public var recordType: String
    /// Each field must equal its value (`EQUALS`), all of them.
    public var filter: RecordFields
    /// Field names to sort by, ascending (system fields such as `___createTime` too).
    public var sortBy: [String]

    public init(device: String, zone: ZoneRef, recordType: String, filter: RecordFields = RecordFields(), sortBy: [String] = []) {
        self.device = device
        self.zone = zone
        self.recordType = recordType
        self.filter = filter
        self.sortBy = sortBy
    }
}
