import SyncCore

/// The team imports a schema text into one environment of the scenario's
/// container (`cktool import-schema`), as a team keeping its schema in git does.
public struct SchemaImportAction: Sendable, Equatable {
    public var environment: ContainerEnvironment
    /// The schema in CloudKit's schema language (see `SchemaLanguage`).
    public var schema: String

    public init(environment: ContainerEnvironment, schema: String) {
        self.environment = environment
        self.schema = schema
    }
}
