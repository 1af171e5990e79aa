import Foundation
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import SyncTestSupport
import Testing

/// Schemas and environments over HTTP: development's just-in-time schema,
/// production's refusals with CloudKit's codes, query indexes, the admin
/// schema calls, deploy refusals, `serve --schema`, and a restart.
@Suite struct SchemaHTTPTests {
    static let container = "iCloud.com.example.Schemas"

    static func db(_ environment: String, _ operation: String) -> String {
        "/database/1/\(container)/\(environment)/private/\(operation)"
    }

    static func admin(_ environment: String, _ operation: String) -> String { "/admin/1/\(container)/\(environment)/\(operation)" }

    static let createZone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#

    static func save(_ name: String, _ fields: String) -> String {
        #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"\#(name)","recordType":"Note","fields":{\#(fields)}}}]}"#
    }

    static func query(_ filterField: String? = nil, sort: String? = nil) -> String {
        let filter = filterField.map { #","filterBy":[{"fieldName":"\#($0)","comparator":"EQUALS","fieldValue":{"value":"a","type":"STRING"}}]"# } ?? ""
        let sortBy = sort.map { #","sortBy":[{"fieldName":"\#($0)"}]"# } ?? ""
        return #"{"zoneID":{"zoneName":"Notes"},"query":{"recordType":"Note"\#(filter)\#(sortBy)}}"#
    }

    func post(_ server: LiveServer, _ path: String, _ body: String, token: String) async throws -> (status: Int, json: [String: Any], text: String) {
        let answer = try await server.raw.exchange(RawHTTP.request(
            "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")], body: Data(body.utf8)))
        let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        return (answer.status, json, answer.text)
    }

    /// The first record's error in a records/modify answer, as (serverErrorCode, reason).
    func recordError(_ answer: (status: Int, json: [String: Any], text: String)) -> (code: String, reason: String)? {
        guard let record = (answer.json["records"] as? [[String: Any]])?.first, let code = record["serverErrorCode"] as? String else { return nil }
        return (code, record["reason"] as? String ?? "")
    }

    @Test func worksInDevelopmentFailsInProductionUntilDeployed() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 11))
        defer { server.stop() }
        let alice = server.aliceToken
        let adminToken = server.host.adminToken
        for environment in ["development", "production"] {
            #expect(try await post(server, Self.db(environment, "zones/modify"), Self.createZone, token: alice).status == 200)
        }
        // Development creates Note and its fields just in time.
        let dev = try await post(server, Self.db("development", "records/modify"), Self.save("n1", #""title":{"value":"a","type":"STRING"}"#), token: alice)
        #expect(dev.status == 200 && recordError(dev) == nil, "\(dev.text)")
        // Production refuses the unknown type, per record, with CloudKit's code and wording.
        let prod = try await post(server, Self.db("production", "records/modify"), Self.save("n1", #""title":{"value":"a","type":"STRING"}"#), token: alice)
        #expect(prod.status == 200)
        #expect(recordError(prod)?.code == "BAD_REQUEST")
        #expect(recordError(prod)?.reason.hasPrefix("Cannot create new type Note in production schema.") == true, "\(prod.text)")
        let prodQuery = try await post(server, Self.db("production", "records/query"), Self.query(), token: alice)
        #expect(prodQuery.status == 400 && prodQuery.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect((prodQuery.json["reason"] as? String)?.hasPrefix("Did not find record type: Note") == true, "\(prodQuery.text)")

        // diff (a dry run) names what a deploy would change; the deploy does it.
        let dry = try await post(server, Self.admin("development", "deploySchema"), #"{"dryRun":true}"#, token: adminToken)
        #expect(dry.json["changes"] as? [String] == [
            "add record type Note (indexed: ___createTime QUERYABLE SORTABLE, ___modTime QUERYABLE SORTABLE, ___recordID QUERYABLE)",
            "add field Note.title STRING QUERYABLE SORTABLE SEARCHABLE",
        ], "\(dry.text)")
        #expect(!(dry.json["schema"] as? String ?? "x").contains("RECORD TYPE"))
        let deployed = try await post(server, Self.admin("development", "deploySchema"), "{}", token: adminToken)
        #expect(deployed.status == 200, "\(deployed.text)")
        let saved = try await post(server, Self.db("production", "records/modify"), Self.save("n1", #""title":{"value":"a","type":"STRING"}"#), token: alice)
        #expect(recordError(saved) == nil, "\(saved.text)")
        #expect(try await post(server, Self.db("production", "records/query"), Self.query("title", sort: "title"), token: alice).status == 200)

        // A field added later works in development and fails in production again.
        let later = Self.save("n2", #""title":{"value":"b","type":"STRING"},"body":{"value":"new","type":"STRING"}"#)
        #expect(recordError(try await post(server, Self.db("development", "records/modify"), later, token: alice)) == nil)
        let refused = try await post(server, Self.db("production", "records/modify"), later, token: alice)
        #expect(recordError(refused)?.reason.hasPrefix("Cannot create or modify field 'body' in record 'Note' in production schema.") == true, "\(refused.text)")
        // A value of another type is refused in both environments.
        for environment in ["development", "production"] {
            let wrong = try await post(server, Self.db(environment, "records/modify"), Self.save("n3", #""title":{"value":3,"type":"INT64"}"#), token: alice)
            #expect(recordError(wrong)?.reason == "invalid attempt to set value type INT64 for field 'title' for type 'Note', defined to be: STRING", "\(wrong.text)")
        }
    }

    @Test func queriesAndSortsNeedIndexesInBothEnvironments() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 12))
        defer { server.stop() }
        let alice = server.aliceToken
        let schema = """
            DEFINE SCHEMA
                RECORD TYPE Note (
                    title STRING,
                    rank INT64 QUERYABLE
                );
            """
        for environment in ["development", "production"] {
            #expect(try await post(server, Self.db(environment, "zones/modify"), Self.createZone, token: alice).status == 200)
            let imported = try await post(server, Self.admin(environment, "importSchema"), try jsonBody(schema), token: server.host.adminToken)
            #expect(imported.status == 200, "\(imported.text)")
            let notQueryable = try await post(server, Self.db(environment, "records/query"), Self.query("title"), token: alice)
            #expect(notQueryable.status == 400 && notQueryable.json["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect((notQueryable.json["reason"] as? String)?.hasPrefix("Field 'title' is not marked queryable") == true, "\(notQueryable.text)")
            let notSortable = try await post(server, Self.db(environment, "records/query"), Self.query(sort: "rank"), token: alice)
            #expect((notSortable.json["reason"] as? String)?.hasPrefix("Field 'rank' is not marked sortable") == true, "\(notSortable.text)")
            let recordName = try await post(server, Self.db(environment, "records/query"), Self.query(sort: "___createTime"), token: alice)
            #expect((recordName.json["reason"] as? String)?.hasPrefix("Field '___createTime' is not marked sortable") == true)
        }
        // Adding the index to the development schema and deploying it makes the query work in production.
        let indexed = schema.replacingOccurrences(of: "title STRING,", with: "title STRING QUERYABLE,")
        #expect(try await post(server, Self.admin("development", "importSchema"), try jsonBody(indexed), token: server.host.adminToken).status == 200)
        let deployed = try await post(server, Self.admin("development", "deploySchema"), "{}", token: server.host.adminToken)
        #expect(deployed.json["changes"] as? [String] == ["change the indexes of Note.title from none to QUERYABLE"], "\(deployed.text)")
        #expect(try await post(server, Self.db("production", "records/query"), Self.query("title"), token: alice).status == 200)
    }

    @Test func aDeployRefusesRemovingAFieldAndNamesIt() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 13))
        defer { server.stop() }
        let adminToken = server.host.adminToken
        let full = "DEFINE SCHEMA RECORD TYPE Note (title STRING, rank INT64);"
        #expect(try await post(server, Self.admin("production", "importSchema"), try jsonBody(full), token: adminToken).status == 200)
        let smaller = "DEFINE SCHEMA RECORD TYPE Note (title STRING);"
        let refusedImport = try await post(server, Self.admin("development", "importSchema"), try jsonBody(smaller), token: adminToken)
        #expect(refusedImport.status == 400)
        #expect((refusedImport.json["reason"] as? String)?.contains("Cannot deploy: it would remove field Note.rank") == true, "\(refusedImport.text)")
        let retyped = "DEFINE SCHEMA RECORD TYPE Note (title STRING, rank DOUBLE);"
        let refusedType = try await post(server, Self.admin("production", "importSchema"), try jsonBody(retyped), token: adminToken)
        #expect((refusedType.json["reason"] as? String)?.contains("change the type of field Note.rank from INT64 to DOUBLE") == true, "\(refusedType.text)")
        let bad = try await post(server, Self.admin("development", "importSchema"), try jsonBody("DEFINE SCHEMA\nRECORD TYPE Note (\n  title STRNG\n);"), token: adminToken)
        #expect((bad.json["reason"] as? String)?.contains("line 3:9: expected a field type") == true, "\(bad.text)")
        // Schema calls take the server admin token, not a user's.
        #expect(try await post(server, Self.admin("development", "schema"), "{}", token: server.aliceToken).status == 403)
        let exported = try await post(server, Self.admin("production", "schema"), "{}", token: adminToken)
        #expect((exported.json["schema"] as? String)?.contains("rank            INT64") == true, "\(exported.text)")
    }

    @Test func serveWithASchemaFileStartsWithItInBothEnvironmentsAndASchemaSurvivesARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("schema.ckdb")
        try Data("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE);".utf8).write(to: file)
        var options = ServeOptions(dataDirectory: directory.appendingPathComponent("data"), coalescingWindow: 0, seed: 14, quiet: true)
        options.schemaFile = file
        options.schemaContainer = Self.container
        let first = try await ServerHost.start(options: options)
        for environment in ContainerEnvironment.allCases {
            #expect(first.schema(container: Self.container, environment: environment).recordTypes["Note"]?.fields["title"]?.indexes == [.queryable])
        }
        // A field saved in development is journaled with its save, and comes back after a restart.
        #expect(await first.perform(APICall(method: "POST", path: Self.db("development", "zones/modify"), body: Data(Self.createZone.utf8), user: "alice")).status == 200)
        #expect(await first.perform(APICall(
            method: "POST", path: Self.db("development", "records/modify"), body: Data(Self.save("n1", #""body":{"value":"x","type":"STRING"}"#).utf8), user: "alice")).status == 200)
        _ = await first.stop()
        options.schemaFile = nil
        let second = try await ServerHost.start(options: options)
        #expect(second.schema(container: Self.container, environment: .development).recordTypes["Note"]?.fields["body"] != nil)
        #expect(second.schema(container: Self.container, environment: .production).recordTypes["Note"]?.fields["body"] == nil)
        _ = await second.stop()

        // A file that takes a deployed field away is refused at start-up, naming it.
        try Data("DEFINE SCHEMA RECORD TYPE Note (other STRING);".utf8).write(to: file)
        options.schemaFile = file
        await #expect {
            _ = try await ServerHost.start(options: options)
        } throws: { error in
            "\(error)".contains("remove field Note.title")
        }
    }

    func jsonBody(_ schema: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["schema": schema]), as: UTF8.self)
    }
}
