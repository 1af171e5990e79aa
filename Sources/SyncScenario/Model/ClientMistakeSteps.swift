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

/// Another iCloud account signs in on a device. The device keeps its local
/// cache (records, tokens, pending changes): they belong to the previous
/// account until the app notices (``StepKind/checkAccount(device:)``).
public struct SignInAction: Sendable, Equatable {
    public var device: String
    /// The user who signs in.
    public var user: String

    public init(device: String, user: String) {
        self.device = device
        self.user = user
    }
}

/// Where a `fetch` step's app is killed while it stores a batch
/// (`fetch: {…, crash: {batch: 2, storing: tokenFirst}}`).
public struct FetchCrash: Sendable, Equatable {
    /// How the app stores a batch of changes.
    public enum Storing: String, Sendable, Equatable, CaseIterable {
        /// The mistake: the batch's token is written on its own, first; the
        /// records come in a second write, which the crash prevents. The
        /// token then says "up to here" for records the device never stored.
        case tokenFirst
        /// The fix: the batch's records and its token are written in one
        /// transaction, which the crash prevents as a whole. The next fetch
        /// starts from the previous token and gets the batch again.
        case oneTransaction
    }

    /// The batch (1 for the first) during whose storing the app is killed.
    public var batch: Int
    public var storing: Storing

    public init(batch: Int, storing: Storing) {
        self.batch = batch
        self.storing = storing
    }
}
