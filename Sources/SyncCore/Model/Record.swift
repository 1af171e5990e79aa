
/// A record: a type, typed fields, and the server's system fields.
public struct Record: Sendable, Hashable, CustomStringConvertible {
    public var recordID: RecordID
    public var recordType: String
    public var fields: RecordFields
    /// The server's version tag for this record; `nil` until the server saved it.
    public var recordChangeTag: String?
    public var created: RecordStamp?
    public var modified: RecordStamp?

    public init(
        recordID: RecordID,
        recordType: String,
        fields: RecordFields = RecordFields(),
        recordChangeTag: String? = nil,
        created: RecordStamp? = nil,
        modified: RecordStamp? = nil
    ) {
        self.recordID = recordID
        self.recordType = recordType
        self.fields = fields
        self.recordChangeTag = recordChangeTag
        self.created = created
        self.modified = modified
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
