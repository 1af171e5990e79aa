/// CloudKit's schema language, as `cktool export-schema` writes it and
/// `cktool import-schema` reads it (Apple's "Integrating a Text-Based Schema
/// into Your Workflow"): parsing a text into a ``ContainerSchema`` and
/// writing one back.
///
/// The grammar read (keywords in any case; `//` and `--` start a comment
/// that runs to the end of the line):
///
/// ```
/// schema      = "DEFINE" "SCHEMA" { statement [ ";" ] }
/// statement   = "CREATE" "ROLE" name
///             | "RECORD" "TYPE" name "(" member { "," member } [ "," ] ")"
/// member      = "GRANT" permission { "," permission } "TO" name
///             | name type { index }
/// permission  = "READ" | "CREATE" | "WRITE"
/// type        = "LIST" "<" plain ">" | plain
/// plain       = [ "ENCRYPTED" ] primitive
/// primitive   = "ASSET" | "BYTES" | "DOUBLE" | "INT64" | "LOCATION"
///             | "REFERENCE" | "STRING" | "TIMESTAMP"
/// index       = "QUERYABLE" | "SORTABLE" | "SEARCHABLE"
/// name        = letter { letter | digit | "_" } | '"' { any but '"' } '"'
/// ```
///
/// A field whose name starts with `___` is a system field (`___createTime`,
/// `___createdBy`, `___etag`, `___modTime`, `___modifiedBy`, `___recordID`):
/// it must have its system type, and only its indexes are kept.
/// ``text(of:)`` writes every record type with all its system fields, its
/// fields sorted by name and its grants, so the same schema always gives the
/// same text, and parsing that text gives the same schema back.
public enum SchemaLanguage {
    /// Parses a schema text, or throws the first problem at its line and column.
    public static func parse(_ text: String) throws(SchemaSyntaxError) -> ContainerSchema {
        var parser = SchemaParser(text)
        return try parser.schema()
    }

    /// The schema as text.
    public static func text(of schema: ContainerSchema) -> String {
        var out = "DEFINE SCHEMA\n"
        for role in schema.roles { out += "\n    CREATE ROLE \(quoted(role));\n" }
        for name in schema.recordTypes.keys.sorted() {
            guard let type = schema.recordTypes[name] else { continue }
            var lines: [(String, String)] = []
            for (system, fieldType) in RecordTypeSchema.systemFields {
                let indexes = type.systemIndexes[system] ?? []
                lines.append(("\"\(system)\"", ([fieldType.description] + indexes.names).joined(separator: " ")))
            }
            for field in type.sortedFields {
                lines.append((quoted(field.name), ([field.type.description] + field.indexes.names).joined(separator: " ")))
            }
            let width = lines.map(\.0.count).max() ?? 0
            var members = lines.map { name, rest in name + String(repeating: " ", count: width - name.count + 1) + rest }
            for grant in type.grants {
                members.append("GRANT \(grant.permissions.joined(separator: ", ")) TO \(quotedAlways(grant.role))")
            }
            out += "\n    RECORD TYPE \(quoted(name)) (\n"
            out += members.map { "        " + $0 }.joined(separator: ",\n")
            out += "\n    );\n"
        }
        return out
    }

    /// A name as written: bare when it is a plain identifier and no keyword, else in double quotes.
    static func quoted(_ name: String) -> String {
        let plain = name.first.map { $0.isASCII && $0.isLetter } ?? false
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            && !SchemaParser.keywords.contains(name.uppercased())
        return plain ? name : quotedAlways(name)
    }

    static func quotedAlways(_ name: String) -> String { "\"\(name)\"" }
}
