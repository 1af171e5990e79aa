/// `admin/importSchema`: `{"schema": "DEFINE SCHEMA …"}`, a schema in
/// CloudKit's schema language.
public struct WireSchemaImportRequest: Codable, Sendable, Hashable {
    public var schema: String

    public init(schema: String) { self.schema = schema }
}
