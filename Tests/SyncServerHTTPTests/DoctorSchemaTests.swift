import Foundation
import SyncCore
import SyncDoctor
import SyncTestSupport
import SyncWire
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// The doctor's `schemaNotDeployed` on a running server: a production save
/// refused for a record type or field development has is named; the same
/// refusal for something development never saw is not (a typo is not a deploy).
@Suite struct DoctorSchemaTests {
    static let production = "/database/1/\(EventFeedTests.container)/production/private"

    func post(_ server: LiveServer, _ path: String, _ json: String) async throws -> RawHTTP.Answer {
        try await EventFeedTests.send(server, "POST", path, token: server.aliceToken, json: json)
    }

    func save(_ server: LiveServer, _ database: String, _ name: String, _ fields: String) async throws -> RawHTTP.Answer {
        try await post(
            server, "\(database)/records/modify",
            #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{\#(fields)}}}]}"#)
    }

    func codes(_ server: LiveServer) async throws -> [Diagnosis] {
        let feed = try await EventFeedTests.feed(server, "bodies=true&limit=10000")
        return SyncDoctor().diagnose(feed.events, now: feed.events.last?.time ?? 0)
    }

    @Test func aProductionRefusalForWhatDevelopmentHasIsNamedWithTheLesson() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 21))
        defer { server.stop() }
        let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#
        for database in [EventFeedTests.database, Self.production] {
            #expect(try await post(server, "\(database)/zones/modify", zone).status == 200)
        }
        // Production refuses a type nobody saved anywhere: not a deploy problem.
        let typo = try await save(server, Self.production, "a", #""title":{"value":"x"}"#)
        #expect(typo.text.contains("Cannot create new type Note"), "\(typo.text)")
        #expect(try await codes(server).isEmpty)
        // Development has Note now; production still refuses it: named.
        #expect(try await save(server, EventFeedTests.database, "a", #""title":{"value":"x"}"#).status == 200)
        _ = try await save(server, Self.production, "b", #""title":{"value":"y"}"#)
        let found = try await codes(server)
        #expect(found.map(\.code) == [.schemaNotDeployed])
        #expect(found.first?.summary.contains("production refused record type Note, which development has") == true, "\(found)")
        #expect(found.first?.lesson == "18-works-in-development")
    }
}
