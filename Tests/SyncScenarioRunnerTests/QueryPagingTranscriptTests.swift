import Foundation
import SyncCore
import SyncScenario
import SyncServer
import Testing
@testable import SyncScenarioRunner

/// Paging a `records/query` is a read: it must not consume the server's
/// seeded random source nor change anything a transcript shows.
@Suite struct QueryPagingTranscriptTests {
    let notes = """
        name: paged-notes
        seed: 9
        users: [alice]
        devices:
          - {name: iPhone, user: alice}
          - {name: Mac, user: alice}
        steps:
          - createZone: {device: iPhone, zone: Notes}
          - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: One}}
          - save: {device: iPhone, zone: Notes, record: note-2, type: Note, fields: {title: Two}}
          - save: {device: iPhone, zone: Notes, record: note-3, type: Note, fields: {title: Three}}
          - save: {device: iPhone, zone: Notes, record: note-4, type: Note, fields: {title: Four}}
          - send: iPhone
          - save: {device: iPhone, zone: Notes, record: note-2, type: Note, fields: {title: Two again}}
          - send: iPhone
          - fetch: {device: Mac, zone: Notes, token: nil}
          - expect: {lastFetch: {records: [note-1, note-3, note-4, note-2]}}
          - createZone: {device: Mac, zone: Work}
          - save: {device: Mac, zone: Work, record: task-1, type: Task, fields: {title: Later}}
          - send: Mac
          - fetch: {device: iPhone, zone: Work, token: nil}

        """

    /// Runs the scenario; with `paging`, pages through a query of the notes
    /// (two a page, sorted by title) between every two steps.
    func transcript(paging: Bool) async throws -> (text: String, pagesRead: Int) {
        let runner = try ScenarioRunner(scenario: try ScenarioParser.parse(yaml: notes, fileName: "paged.yaml"))
        let database = DatabaseID(container: runner.simulation.container, environment: .development, scope: .private)
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        var pagesRead = 0
        while true {
            let outcome = await runner.runNextStep()
            if outcome.isEndOfScenario { break }
            #expect(outcome.failure == nil, "\(String(describing: outcome.failure))")
            guard paging else { continue }
            pagesRead += try runner.simulation.server.withEngine { (engine) throws(CloudError) -> Int in
                var marker: String?
                var pages = 0
                repeat {
                    let request = QueryRequest(
                        query: RecordQuery(recordType: "Note", sortBy: [RecordQuery.Sort("title")]), zoneID: zone, resultsLimit: 2,
                        continuationMarker: marker)
                    let page = try engine.queryRecords(caller: Caller(user: "alice"), database: database, request)
                    pages += 1
                    marker = page.continuationMarker
                } while marker != nil
                return pages
            }
        }
        return (runner.transcript.compactMap(TranscriptFormatter.text).joined(separator: "\n"), pagesRead)
    }

    @Test func pagingBetweenStepsLeavesTheSeededTranscriptByteForByte() async throws {
        let plain = try await transcript(paging: false)
        let paged = try await transcript(paging: true)
        #expect(paged.pagesRead >= 8, "queries with several pages ran between the steps")
        #expect(plain.text.contains("Work") && plain.text.contains("task-1"), "the transcript shows a zone (and its tokens) made after paging")
        #expect(paged.text == plain.text)
    }
}
