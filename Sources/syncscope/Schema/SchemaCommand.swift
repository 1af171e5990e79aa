import ArgumentParser

struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "A container's schema in CloudKit's schema language: export, import, diff, validate, deploy.",
        discussion: """
            The text format is modelled on cktool's (DEFINE SCHEMA, RECORD TYPE Name (field TYPE QUERYABLE \
            SORTABLE SEARCHABLE, …, GRANT … TO role)), so a team can keep its schema in git. Development \
            creates record types and fields just in time; production takes only what was deployed to it.
            """,
        subcommands: [SchemaExport.self, SchemaImport.self, SchemaDiff.self, SchemaValidate.self, SchemaDeploy.self]
    )
}
