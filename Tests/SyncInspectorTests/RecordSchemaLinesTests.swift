import Foundation
import SyncCore
import Testing
@testable import SyncInspector

/// The record detail's schema part, and the records pane's `✗prod` mark,
/// on hand-built schemas.
@Suite struct RecordSchemaLinesTests {
    let record = Record(
        recordID: RecordID(recordName: "note-1", zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice")), recordType: "Note",
        fields: ["title": .string("Milk"), "done": .int64(1)])

    func schemas() throws -> [ContainerEnvironment: ContainerSchema] {
        [
            .development: try SchemaLanguage.parse(
                "DEFINE SCHEMA RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE SORTABLE, done INT64);"),
            .production: try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE SORTABLE);"),
        ]
    }

    @Test func showsTheTypesFieldsAndIndexesOfEachEnvironmentAndProductionsVerdict() throws {
        let lines = RecordSchemaLines.lines(for: record, schemas: try schemas())
        #expect(lines == [
            .heading("Schema (development): Note"),
            .field("  done         INT64  no index"),
            .field("  title        STRING  QUERYABLE SORTABLE"),
            .field("  ___recordID  REFERENCE  QUERYABLE"),
            .heading("Schema (production): Note"),
            .field("  title  STRING  QUERYABLE SORTABLE"),
            .refused("✗ production would refuse it: Cannot create or modify field 'done' in record 'Note' in production schema"),
        ])
    }

    @Test func aRecordProductionTakesIsMarkedSoAndNothingShowsWithoutSchemas() throws {
        let accepted = Record(recordID: record.recordID, recordType: "Note", fields: ["title": .string("Milk")])
        #expect(RecordSchemaLines.lines(for: accepted, schemas: try schemas()).last == .accepted("✓ production's schema takes it"))
        #expect(RecordSchemaLines.lines(for: record, schemas: [:]).isEmpty)
        #expect(RecordSchemaLines.lines(for: record, schemas: [.development: try schemas()[.development]!, .production: ContainerSchema()]).isEmpty)
    }

    @Test func theRecordsPaneMarksOnlyOnceSomethingWasDeployed() throws {
        #expect(RecordSchemaLines.deployedProduction([.production: ContainerSchema()]) == nil)
        #expect(RecordSchemaLines.deployedProduction(try schemas())?.recordTypes["Note"] != nil)
    }
}
