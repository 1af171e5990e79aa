/// The answer of the schema calls: `admin/schema` gives the environment's
/// schema in CloudKit's schema language; `admin/importSchema` and
/// `admin/deploySchema` give the schema after the call and the changes it
/// made (or, with `dryRun`, would make), one sentence each.
public struct WireSchemaResponse: Codable, Sendable, Hashable {
    public var schema: String
    public var changes: [String]?

    public init(schema: String, changes: [String]? = nil) {
        self.schema = schema
        self.changes = changes
    }
}
