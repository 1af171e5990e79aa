
/// A record: a type, typed fields, and the server's system fields.
public struct Record: Sendable, Hashable, CustomStringConvertible {
    public var recordID: RecordID
    public var recordType: String
    public var fields: RecordFields
    /// The server's version tag for this record; `nil` until the server saved it.
    public var recordChangeTag: String?
    public var created: RecordStamp?
    public var modified: RecordStamp?
    /// The record's parent (`CKRecord.parent`): a record in the same zone. A
    /// share of a record shares every record whose parent chain reaches it.
    public var parent: RecordReference?
    /// The share this record is the root of (`CKRecord.share`), set by the server.
    public var share: RecordReference?

    public init(
        recordID: RecordID,
        recordType: String,
        fields: RecordFields = RecordFields(),
        recordChangeTag: String? = nil,
        created: RecordStamp? = nil,
        modified: RecordStamp? = nil,
        parent: RecordReference? = nil,
        share: RecordReference? = nil
    ) {
        self.recordID = recordID
        self.recordType = recordType
        self.fields = fields
        self.recordChangeTag = recordChangeTag
        self.created = created
        self.modified = modified
        self.parent = parent
        self.share = share
    }

    public subscript(key: String) -> FieldValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    public var description: String {
        let body = fields.map { "\($0.name)=\($0.value.displayString)" }.joined(separator: " ")
        return "\(recordType) \(recordID.recordName) [\(recordChangeTag ?? "unsaved")] \(body)"
    }
}
