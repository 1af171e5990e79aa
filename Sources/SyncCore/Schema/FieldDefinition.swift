/// One field of a record type: its name, its type and its indexes.
public struct FieldDefinition: Sendable, Hashable {
    public var name: String
    public var type: SchemaFieldType
    public var indexes: FieldIndexes

    public init(name: String, type: SchemaFieldType, indexes: FieldIndexes = []) {
        self.name = name
        self.type = type
        self.indexes = indexes
    }
}
