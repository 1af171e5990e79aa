/// One record type of a schema: its fields, the indexes of its system
/// fields, and its permissions.
public struct RecordTypeSchema: Sendable, Hashable {
    /// One `GRANT … TO role` of a record type: kept, exported and deployed as
    /// written; the server does not enforce it (see the SyncServer page "Schemas and environments").
    public struct Grant: Sendable, Hashable {
        /// `READ`, `CREATE`, `WRITE`, in the order written.
        public var permissions: [String]
        public var role: String

        public init(permissions: [String], role: String) {
            self.permissions = permissions
            self.role = role
        }
    }

    /// The system fields every record has, with their types, as CloudKit's
    /// schema language names them; queries name three of them
    /// (`___recordID`, `___createTime`, `___modTime`).
    public static let systemFields: [(name: String, type: SchemaFieldType)] = [
        ("___createTime", SchemaFieldType(.timestamp)), ("___createdBy", SchemaFieldType(.reference)),
        ("___etag", SchemaFieldType(.string)), ("___modTime", SchemaFieldType(.timestamp)),
        ("___modifiedBy", SchemaFieldType(.reference)), ("___recordID", SchemaFieldType(.reference)),
    ]

    /// The system-field indexes a record type created just in time gets:
    /// those the queries this server serves can use (`___recordID`
    /// QUERYABLE; `___createTime` and `___modTime` QUERYABLE and SORTABLE),
    /// so that development answers such queries as before schemas existed.
    public static let justInTimeSystemIndexes: [String: FieldIndexes] = [
        "___recordID": [.queryable], "___createTime": [.queryable, .sortable], "___modTime": [.queryable, .sortable],
    ]

    /// The permissions CloudKit gives a record type it creates just in time.
    public static let defaultGrants: [Grant] = [
        Grant(permissions: ["WRITE"], role: "_creator"), Grant(permissions: ["CREATE"], role: "_icloud"),
        Grant(permissions: ["READ"], role: "_world"),
    ]

    public var name: String
    /// The type's own fields, by name.
    public var fields: [String: FieldDefinition]
    /// The indexes of system fields, by system field name (none: not listed).
    public var systemIndexes: [String: FieldIndexes]
    public var grants: [Grant]

    public init(name: String, fields: [String: FieldDefinition] = [:], systemIndexes: [String: FieldIndexes] = [:], grants: [Grant] = defaultGrants) {
        self.name = name
        self.fields = fields
        self.systemIndexes = systemIndexes
        self.grants = grants
    }

    /// The type of a system field, or `nil` when the name is not one.
    public static func systemFieldType(_ name: String) -> SchemaFieldType? {
        systemFields.first { $0.name == name }?.type
    }

    /// The indexes a field (own or system) has; `nil`: the type has no such field.
    public func indexes(of fieldName: String) -> FieldIndexes? {
        if let field = fields[fieldName] { return field.indexes }
        if Self.systemFieldType(fieldName) != nil { return systemIndexes[fieldName] ?? [] }
        return nil
    }

    /// The fields sorted by name.
    public var sortedFields: [FieldDefinition] { fields.values.sorted { $0.name < $1.name } }
}
