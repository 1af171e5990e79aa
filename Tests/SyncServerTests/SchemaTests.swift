import Foundation
import SyncCore
import SyncServer
import Testing

/// Schemas and environments in the engine: development's just-in-time
/// schema, production's refusals, query indexes, deploys and checkpoints.
@Suite struct SchemaTests {
    func productionZone(_ f: Fixture) throws -> RecordZoneID {
        let id = f.zone("Notes")
        _ = try f.engine.modifyRecordZones(caller: f.alice, database: f.db(.private, environment: .production), saving: [id], deleting: []).first?.get()
        return id
    }

    func query(_ f: Fixture, _ query: RecordQuery, in zoneID: RecordZoneID, environment: ContainerEnvironment) throws -> [String] {
        try f.engine.queryRecords(caller: f.alice, database: f.db(.private, environment: environment), QueryRequest(query: query, zoneID: zoneID))
            .records.map(\.recordID.recordName)
    }

    func failure(_ results: [Result<RecordOperationResult, CloudError>]) -> CloudError? {
        results.compactMap { if case .failure(let error) = $0 { error } else { nil } }.first
    }

    @Test func developmentCreatesTypesAndFieldsJustInTimeWithTheirIndexes() throws {
        let f = try Fixture()
        let zone = try f.createZone("Notes")
        #expect(f.engine.schema(container: f.container, environment: .development).recordTypes.isEmpty)
        try f.save("n1", in: zone, ["title": .string("a"), "rank": .int64(1)])
        let note = try #require(f.engine.schema(container: f.container, environment: .development).recordTypes["Note"])
        #expect(note.fields["title"] == FieldDefinition(name: "title", type: SchemaFieldType(.string), indexes: [.queryable, .sortable, .searchable]))
        #expect(note.fields["rank"]?.type == SchemaFieldType(.int64))
        // Production learns nothing from development.
        #expect(f.engine.schema(container: f.container, environment: .production).recordTypes.isEmpty)
        // A later field is added too; a value of another type is refused, and nothing of that request is kept.
        try f.save("n2", in: zone, ["body": .string("b")])
        #expect(f.engine.schema(container: f.container, environment: .development).recordTypes["Note"]?.fields["body"] != nil)
        let refused = failure(try f.modify([.save(f.record("n3", in: zone, ["rank": .string("one"), "extra": .int64(2)]))], in: zone))
        #expect(refused?.code == .invalidArguments)
        #expect(refused?.reason == "invalid attempt to set value type STRING for field 'rank' for type 'Note', defined to be: INT64")
        #expect(f.engine.schema(container: f.container, environment: .development).recordTypes["Note"]?.fields["extra"] == nil)
    }

    @Test func eachRecordOfARequestIsCheckedEvenWhenItLooksLikeTheOneBefore() throws {
        let f = try Fixture()
        let zone = try f.createZone("Notes")
        try f.save("n0", in: zone, ["title": .string("a"), "tags": .list(.string, [.string("x")])])
        let results = try f.modify(
            [
                .save(f.record("n1", in: zone, ["title": .string("b"), "tags": .list(.string, [])])),
                .save(f.record("n2", in: zone, ["title": .int64(2), "tags": .list(.string, [])])),
                .save(f.record("n3", in: zone, ["title": .string("c"), "tags": .string("not a list")])),
                .save(f.record("n4", in: zone, ["title": .string("d"), "tags": .list(.string, [.string("y")])])),
            ],
            in: zone, atomic: false)
        let refused = results.map { result -> String? in if case .failure(let error) = result { error.recordName } else { nil } }
        #expect(refused == [nil, "n2", "n3", nil])
    }

    /// The request's memo admits a record like the last one that fitted
    /// without a lookup: "like" must mean the same field names and the same
    /// types, a list's element type included, or production takes what it lacks.
    @Test func productionChecksEachRecordsFieldNamesAndListTypesInARequestOfOneShape() throws {
        let f = try Fixture()
        let prod = f.db(.private, environment: .production)
        try f.engine.importSchema(
            try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Note (title STRING, tags LIST<STRING>);"), container: f.container, environment: .production)
        let zone = try productionZone(f)
        let results = try f.modify(
            [
                .save(f.record("n1", in: zone, ["title": .string("a"), "tags": .list(.string, [])])),
                .save(f.record("n2", in: zone, ["titel": .string("b"), "tags": .list(.string, [])])),
                .save(f.record("n3", in: zone, ["title": .string("c"), "tags": .list(.int64, [])])),
                .save(f.record("n4", in: zone, ["title": .string("d"), "tags": .string("not a list")])),
                .save(f.record("n5", in: zone, ["title": .string("e")])),
                .save(f.record("n6", in: zone, ["title": .string("f"), "tags": .list(.string, [.string("x")])])),
            ],
            in: zone, database: prod, atomic: false)
        let refused = results.map { result -> String? in if case .failure(let error) = result { error.recordName } else { nil } }
        #expect(refused == [nil, "n2", "n3", "n4", nil, nil])
    }

    @Test func anAtomicRequestThatFailsAddsNothingToTheSchema() throws {
        let f = try Fixture()
        let zone = try f.createZone("Notes")
        try f.save("n1", in: zone, ["title": .string("a")])
        let results = try f.modify(
            [.save(f.record("n2", in: zone, type: "Task", ["due": .timestamp(5)])), RecordOperation(type: .create, record: f.record("n1", in: zone, ["title": .string("b")]))],
            in: zone)
        #expect(failure(results) != nil)
        #expect(f.engine.schema(container: f.container, environment: .development).recordTypes["Task"] == nil)
    }

    @Test func productionRefusesAnUnknownTypeOrFieldWithApplesWordingAndAcceptsWhatIsDeployed() throws {
        let f = try Fixture()
        let prod = f.db(.private, environment: .production)
        let zone = try productionZone(f)
        let unknownType = failure(try f.modify([.save(f.record("n1", in: zone, ["title": .string("a")]))], in: zone, database: prod))
        #expect(unknownType?.serverErrorCode == "BAD_REQUEST")
        #expect(unknownType?.reason.hasPrefix("Cannot create new type Note in production schema.") == true, "\(unknownType?.reason ?? "")")
        #expect(unknownType?.recordName == "n1")

        let dev = try f.createZone("Notes")
        try f.save("d1", in: dev, ["title": .string("a")])
        #expect(try f.engine.deploySchema(container: f.container).map(\.description) == [
            "add record type Note (indexed: ___createTime QUERYABLE SORTABLE, ___modTime QUERYABLE SORTABLE, ___recordID QUERYABLE)",
            "add field Note.title STRING QUERYABLE SORTABLE SEARCHABLE",
        ])
        try f.save("n1", in: zone, ["title": .string("a")], database: prod)

        let unknownField = failure(try f.modify([.save(f.record("n2", in: zone, ["title": .string("b"), "body": .string("new")]))], in: zone, database: prod))
        #expect(unknownField?.reason.hasPrefix("Cannot create or modify field 'body' in record 'Note' in production schema.") == true)
        let wrongType = failure(try f.modify([.save(f.record("n3", in: zone, ["title": .int64(3)]))], in: zone, database: prod))
        #expect(wrongType?.reason == "invalid attempt to set value type INT64 for field 'title' for type 'Note', defined to be: STRING")
        #expect(f.engine.schema(container: f.container, environment: .production).recordTypes["Note"]?.fields["body"] == nil)
    }

    @Test func queriesNeedTheRecordTypeAndIndexesInBothEnvironments() throws {
        let f = try Fixture()
        let zone = try f.createZone("Notes")
        // Development answers a type no save has made yet with no records (our choice; production refuses it, below).
        #expect(try query(f, RecordQuery(recordType: "Note", sortBy: [.init("title")]), in: zone, environment: .development) == [])
        try f.save("n1", in: zone, ["title": .string("a"), "photo": .bytes(Data([1]))])
        #expect(try query(f, RecordQuery(recordType: "Note", predicate: QueryPredicate([QueryFilter("title", .equals, .string("a"))])), in: zone, environment: .development) == ["n1"])
        do {
            _ = try query(f, RecordQuery(recordType: "Note", predicate: QueryPredicate([QueryFilter("photo", .equals, .bytes(Data([1])))])), in: zone, environment: .development)
            Issue.record("BYTES fields have no index")
        } catch let error as CloudError {
            #expect(error.serverErrorCode == "BAD_REQUEST")
            #expect(error.reason.hasPrefix("Field 'photo' is not marked queryable"))
        }
        // A type made just in time can be queried by name and sorted by its times; not by who created it.
        #expect(try query(f, RecordQuery(recordType: "Note", sortBy: [.init("___modTime"), .init("___createTime")]), in: zone, environment: .development) == ["n1"])
        #expect(f.engine.schema(container: f.container, environment: .development).recordTypes["Note"]?.indexes(of: "___recordID") == [.queryable])
        #expect(f.engine.schema(container: f.container, environment: .development).recordTypes["Note"]?.indexes(of: "___createdBy") == [])
        // Production: the type is unknown until deployed; then its indexes come with it.
        let prodZone = try productionZone(f)
        do {
            _ = try query(f, RecordQuery(recordType: "Note"), in: prodZone, environment: .production)
            Issue.record("production has no Note yet")
        } catch let error as CloudError {
            #expect(error.reason.hasPrefix("Did not find record type: Note"))
        }
        try f.engine.deploySchema(container: f.container)
        #expect(try query(f, RecordQuery(recordType: "Note", sortBy: [.init("title")]), in: prodZone, environment: .production) == [])
    }

    @Test func aDeployRefusesRemovingAFieldOrChangingItsTypeAndNamesIt() throws {
        let f = try Fixture()
        let zone = try f.createZone("Notes")
        try f.save("n1", in: zone, ["title": .string("a"), "rank": .int64(1)])
        try f.engine.deploySchema(container: f.container)
        var development = f.engine.schema(container: f.container, environment: .development)
        development.recordTypes["Note"]?.fields["rank"] = nil
        development.recordTypes["Note"]?.fields["title"]?.type = SchemaFieldType(.int64)
        // Importing into development is refused too: the next deploy could not happen.
        #expect {
            try f.engine.importSchema(development, container: f.container, environment: .development)
        } throws: { error in
            (error as? CloudError)?.reason.contains("remove field Note.rank; change the type of field Note.title from STRING to INT64") == true
        }
        let before = f.engine.schema(container: f.container, environment: .production)
        #expect(try f.engine.deploySchema(container: f.container, dryRun: true).isEmpty)
        #expect(f.engine.schema(container: f.container, environment: .production) == before)
    }

    @Test func theSchemaSurvivesACheckpointAndAnExportImport() throws {
        let f = try Fixture()
        let zone = try f.createZone("Notes")
        try f.save("n1", in: zone, ["title": .string("a")])
        try f.engine.deploySchema(container: f.container)
        let file = f.engine.checkpointState()
        let restored = ServerEngine(configuration: ServerConfiguration(), clock: f.clock)
        try restored.importState(file, keepingHistory: true)
        for environment in ContainerEnvironment.allCases {
            #expect(restored.schema(container: f.container, environment: environment) == f.engine.schema(container: f.container, environment: environment))
        }
        #expect(restored.schema(container: f.container, environment: .production).recordTypes["Note"] != nil)
    }

    @Test func withoutSchemaChecksEveryEnvironmentTakesAnything() throws {
        let f = try Fixture(configuration: ServerConfiguration(checksSchemas: false))
        let zone = try productionZone(f)
        let prod = f.db(.private, environment: .production)
        try f.save("n1", in: zone, ["title": .string("a")], database: prod)
        #expect(try query(f, RecordQuery(recordType: "Note", sortBy: [.init("___modTime")]), in: zone, environment: .production) == ["n1"])
        #expect(f.engine.schema(container: f.container, environment: .production).recordTypes.isEmpty)
    }
}
