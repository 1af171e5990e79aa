import SyncCore

/// The app's own `records/modify` requests (`CKModifyRecordsOperation`),
/// without the sync engine's help: no zone is created first, no error is
/// handled, nothing is retried. Lessons use it to show what the engine
/// does for you, by showing what happens without it.
public struct ModifyRecordsAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    /// `nil`: every zone the device has pending record changes in.
    public var zone: ZoneRef?
    /// Most record operations per request; `nil`: all of a zone's changes
    /// in one request (more than the server's 400 fails with `limitExceeded`).
    public var perRequest: Int?
    /// New records the request saves besides the device's pending changes
    /// (the app builds them on the spot, as with `CKModifyRecordsOperation(recordsToSave:)`);
    /// they need ``zone``.
    public var records: [NewRecord]

    /// A record written in the step itself.
    public struct NewRecord: Sendable, Equatable {
        public var recordName: String
        public var recordType: String
        public var fields: RecordFields

        public init(recordName: String, recordType: String, fields: RecordFields = RecordFields()) {
            self.recordName = recordName
            self.recordType = recordType
            self.fields = fields
        }
    }

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef? = nil, perRequest: Int? = nil, records: [NewRecord] = []
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.perRequest = perRequest
        self.records = records
    }
}
