
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
    public var parent: RecordReference? {
        get { links?.parent }
        set { links = Self.links(parent: newValue, share: share) }
    }
    /// The share this record is the root of (`CKRecord.share`), set by the server.
    public var share: RecordReference? {
        get { links?.share }
        set { links = Self.links(parent: parent, share: newValue) }
    }

    /// ``parent`` and ``share``, out of line: most records have neither, and
    /// a record is copied whole on every save, fetch and change; inline, the two
    /// references made a record about half as big again. `nil` when both are
    /// (``links(parent:share:)``). Visible to inlined code only: the
    /// initializer is inlinable, so that building a record with neither (a
    /// server's fetch builds one per record) costs nothing for them.
    @usableFromInline var links: Links?

    @usableFromInline indirect enum Links: Sendable, Hashable {
        case links(parent: RecordReference?, share: RecordReference?)

        var parent: RecordReference? {
            switch self { case .links(let parent, _): parent }
        }
        var share: RecordReference? {
            switch self { case .links(_, let share): share }
        }
    }

    /// What ``links`` holds for this parent and share: `nil` when both are,
    /// so that a record whose links were cleared equals one that never had any.
    @inlinable @inline(__always)
    static func links(parent: RecordReference?, share: RecordReference?) -> Links? {
        parent == nil && share == nil ? nil : .links(parent: parent, share: share)
    }

    @inlinable public init(
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
        links = Self.links(parent: parent, share: share)
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
