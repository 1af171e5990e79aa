/// A query for records of one type: CloudKit's `CKQuery` (records/query's
/// `query` dictionary): `recordType`, filters ANDed, and sort descriptors.
public struct RecordQuery: Sendable, Hashable {
    /// One sort descriptor: a field (or a system field such as
    /// `___createTime`) and its direction.
    public struct Sort: Sendable, Hashable {
        public var fieldName: String
        public var ascending: Bool

        public init(_ fieldName: String, ascending: Bool = true) {
            self.fieldName = fieldName
            self.ascending = ascending
        }
    }

    public var recordType: String
    public var predicate: QueryPredicate
    public var sortBy: [Sort]

    public init(recordType: String, predicate: QueryPredicate = .all, sortBy: [Sort] = []) {
        self.recordType = recordType
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// The system fields a query may filter and sort on, as CloudKit Web
    /// Services names them: the record's name (a `REFERENCE`), and when it
    /// was created and last modified (`TIMESTAMP`s).
    public static let systemFieldNames: Set<String> = ["___recordID", "___createTime", "___modTime"]
}
