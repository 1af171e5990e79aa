import Foundation
import SyncCore
import Testing

/// CloudKit's schema language: parsing, writing back, and errors at a line and column.
@Suite struct SchemaLanguageTests {
    static let text = """
        // The team's schema, kept in git.
        DEFINE SCHEMA

            CREATE ROLE Editor;

            RECORD TYPE Note (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID"   REFERENCE QUERYABLE,
                title           STRING QUERYABLE SORTABLE SEARCHABLE,
                rank            INT64 SORTABLE,
                tags            LIST<STRING> QUERYABLE,
                secret          ENCRYPTED STRING,
                photo           ASSET,
                place           LOCATION QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE, READ TO "_icloud"
            );

            RECORD TYPE "Folder" (
                name STRING -- no index
            );
        """

    @Test func parsesTypesFieldsIndexesSystemIndexesGrantsAndRoles() throws {
        let schema = try SchemaLanguage.parse(Self.text)
        #expect(schema.roles == ["Editor"])
        #expect(schema.recordTypes.keys.sorted() == ["Folder", "Note"])
        let note = try #require(schema.recordTypes["Note"])
        #expect(note.fields["title"] == FieldDefinition(name: "title", type: SchemaFieldType(.string), indexes: [.queryable, .sortable, .searchable]))
        #expect(note.fields["tags"]?.type == SchemaFieldType(.string, list: true))
        #expect(note.fields["secret"]?.type == SchemaFieldType(.string, encrypted: true))
        #expect(note.fields["rank"]?.indexes == [.sortable])
        #expect(note.systemIndexes["___createTime"] == [.queryable, .sortable])
        #expect(note.indexes(of: "___recordID") == [.queryable])
        #expect(note.indexes(of: "___modTime") == [])
        #expect(note.indexes(of: "nothing") == nil)
        #expect(note.grants == [.init(permissions: ["WRITE"], role: "_creator"), .init(permissions: ["CREATE", "READ"], role: "_icloud")])
        #expect(schema.recordTypes["Folder"]?.fields["name"]?.indexes == [])
    }

    @Test func exportThenImportGivesTheSameSchemaAndTheSameText() throws {
        let schema = try SchemaLanguage.parse(Self.text)
        let exported = SchemaLanguage.text(of: schema)
        let again = try SchemaLanguage.parse(exported)
        #expect(again == schema)
        #expect(SchemaLanguage.text(of: again) == exported)
        #expect(exported.contains("        \"___recordID\"   REFERENCE QUERYABLE,"), "\(exported)")
        #expect(exported.contains("        title           STRING QUERYABLE SORTABLE SEARCHABLE,"), "\(exported)")
    }

    @Test(arguments: [
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    title STRNG\n);", 3, 11, "expected a field type"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    photo ASSET QUERYABLE\n);", 3, 17, "ASSET fields cannot be QUERYABLE (they can have no index)"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    secret ENCRYPTED STRING SORTABLE\n);", 3, 29, "cannot be SORTABLE"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    a STRING,\n    a INT64\n);", 4, 5, "field a is listed twice"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (a STRING);\nRECORD TYPE Note (b STRING);", 3, 13, "record type Note is defined twice"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    \"___recordID\" STRING\n);", 3, 5, "system field ___recordID is a REFERENCE"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    title STRING\n    body STRING\n);", 4, 5, "expected ',' or ')'"),
        ("RECORD TYPE Note (a STRING);", 1, 1, "expected DEFINE"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    ref ENCRYPTED REFERENCE\n);", 3, 19, "REFERENCE cannot be ENCRYPTED"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    \"2x\" STRING\n);", 3, 5, "not a valid field name"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    n LIST<INT64 \n);", 4, 1, "expected '>'"),
        ("DEFINE SCHEMA\nRECORD TYPE Note (\n    n INT64 % \n);", 3, 13, "unexpected character '%'"),
    ])
    func problemsAreNamedAtTheirLineAndColumn(text: String, line: Int, column: Int, message: String) {
        #expect {
            try SchemaLanguage.parse(text)
        } throws: { error in
            guard let error = error as? SchemaSyntaxError else { return false }
            return error.line == line && error.column == column && error.message.contains(message)
        }
    }

    @Test func anErrorIsWordedAsFileLineColumn() {
        let error = SchemaSyntaxError(line: 3, column: 11, message: "expected a field type")
        #expect(error.located(in: "schema.ckdb") == "schema.ckdb:3:11: error: expected a field type")
    }

    @Test func aDeployNamesWhatItWouldChangeAndRefusesLosingData() throws {
        let production = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE, rank INT64); RECORD TYPE Old (x STRING);")
        let development = try SchemaLanguage.parse(
            "DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE SORTABLE, rank STRING, body STRING); RECORD TYPE Tag (name STRING);")
        #expect(production.changes(to: development).map(\.description) == [
            "add field Note.body STRING",
            "change the type of field Note.rank from INT64 to STRING",
            "change the indexes of Note.title from QUERYABLE to QUERYABLE SORTABLE",
            "remove record type Old",
            "add record type Tag",
            "add field Tag.name STRING",
        ])
        guard case .failure(let refusal) = production.deploying(development) else {
            Issue.record("a deploy that removes a type and changes a field's type must be refused")
            return
        }
        #expect(refusal.reason.contains("change the type of field Note.rank from INT64 to STRING; remove record type Old"), "\(refusal.reason)")
        var additive = development
        additive.recordTypes["Note"]?.fields["rank"]?.type = SchemaFieldType(.int64)
        additive.recordTypes["Old"] = production.recordTypes["Old"]
        guard case .success(let deployed) = production.deploying(additive) else {
            Issue.record("an additive deploy must be accepted")
            return
        }
        #expect(deployed.schema == additive)
        #expect(deployed.changes.allSatisfy { !$0.losesData })
    }

    @Test func developmentExtendsJustInTimeAndRefusesAValueOfAnotherType() {
        var schema = ContainerSchema()
        guard case .success(let changes) = schema.extend(recordType: "Note", fields: ["title": .string("a"), "n": .int64(1)]) else {
            Issue.record("a first save extends the schema")
            return
        }
        #expect(changes.map(\.description) == ["add record type Note (indexed: ___createTime QUERYABLE SORTABLE, ___modTime QUERYABLE SORTABLE, ___recordID QUERYABLE)", "add field Note.n INT64 QUERYABLE SORTABLE", "add field Note.title STRING QUERYABLE SORTABLE SEARCHABLE"])
        #expect(schema.check(recordType: "Note", fields: ["title": .string("b")]) == .fits)
        #expect(schema.check(recordType: "Note", fields: ["n": .string("one")])
            == .wrongType("invalid attempt to set value type STRING for field 'n' for type 'Note', defined to be: INT64"))
        #expect(schema.check(recordType: "Note", fields: ["body": .string("x")])
            == .missing("Cannot create or modify field 'body' in record 'Note' in production schema"))
        #expect(schema.check(recordType: "Task", fields: [:]) == .missing("Cannot create new type Task in production schema"))
        #expect(schema.check(recordType: "Note", fields: ["secret": .encryptedBytes(Data([1]))]) != .fits)
    }
}
