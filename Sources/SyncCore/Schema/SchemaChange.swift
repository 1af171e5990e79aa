/// One difference between two schemas, worded as what applying it would do.
public enum SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// A new record type, with the indexes of its system fields (its own fields come as ``addField(recordType:_:)``).
    case addRecordType(String, systemIndexes: [String: FieldIndexes] = [:])
    case removeRecordType(String)
    case addField(recordType: String, FieldDefinition)
    case removeField(recordType: String, field: String)
    case changeFieldType(recordType: String, field: String, from: SchemaFieldType, to: SchemaFieldType)
    case changeIndexes(recordType: String, field: String, from: FieldIndexes, to: FieldIndexes)
    case changeGrants(recordType: String)
    case addRole(String)
    case removeRole(String)

    /// Whether a deploy to production refuses it: CloudKit refuses anything
    /// that could lose data already in production (removing a type, a field
    /// or a role, or changing a field's type).
    public var losesData: Bool {
        switch self {
        case .removeRecordType, .removeField, .changeFieldType, .removeRole: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .addRecordType(let type, let systemIndexes):
            systemIndexes.isEmpty
                ? "add record type \(type)"
                : "add record type \(type) (indexed: "
                    + systemIndexes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.names.joined(separator: " "))" }.joined(separator: ", ") + ")"
        case .removeRecordType(let type): "remove record type \(type)"
        case .addField(let type, let field):
            "add field \(type).\(field.name) \(([field.type.description] + field.indexes.names).joined(separator: " "))"
        case .removeField(let type, let field): "remove field \(type).\(field)"
        case .changeFieldType(let type, let field, let from, let to): "change the type of field \(type).\(field) from \(from) to \(to)"
        case .changeIndexes(let type, let field, let from, let to):
            "change the indexes of \(type).\(field) from \(Self.words(from)) to \(Self.words(to))"
        case .changeGrants(let type): "change the permissions of record type \(type)"
        case .addRole(let role): "add role \(role)"
        case .removeRole(let role): "remove role \(role)"
        }
    }

    private static func words(_ indexes: FieldIndexes) -> String {
        indexes.isEmpty ? "none" : indexes.names.joined(separator: " ")
    }
}
