import Foundation
import SyncCore
import Testing
@testable import SyncScenario

@Suite("The example from the format's documentation")
struct ExampleTests {
    static let firstFetch = """
        name: first-fetch
        title: "First fetch with a nil token"
        seed: 1
        users: [alice]
        devices:
          - {name: iPhone, user: alice}
          - {name: Mac, user: alice}
        steps:
          - say: "Alice's iPhone creates a zone and saves two notes."
          - createZone: {device: iPhone, zone: Notes}
          - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: Groceries}}
          - send: iPhone
          - fetch: {device: Mac, zone: Notes, token: nil, resultsLimit: 1, capture: first}
          - expect: {lastFetch: {records: [note-1], moreComing: false}}
        """

    @Test func theBriefExampleParsesIntoTheModel() throws {
        let scenario = try ScenarioParser.parse(yaml: Self.firstFetch, fileName: "first-fetch.yaml")
        let file = "first-fetch.yaml"
        let expected = Scenario(
            name: "first-fetch",
            title: "First fetch with a nil token",
            seed: 1,
            users: ["alice"],
            devices: [DeviceSetup(name: "iPhone", user: "alice"), DeviceSetup(name: "Mac", user: "alice")],
            steps: [
                Step(.say("Alice's iPhone creates a zone and saves two notes."), at: SourceLocation(file: file, line: 9, column: 5)),
                Step(.createZone(ZoneAction(device: "iPhone", zone: ZoneRef("Notes"))), at: SourceLocation(file: file, line: 10, column: 5)),
                Step(
                    .save(SaveAction(
                        device: "iPhone", zone: ZoneRef("Notes"), recordName: "note-1", recordType: "Note",
                        fields: ["title": .string("Groceries")])),
                    at: SourceLocation(file: file, line: 11, column: 5)),
                Step(.send(device: "iPhone"), at: SourceLocation(file: file, line: 12, column: 5)),
                Step(
                    .fetch(FetchAction(
                        device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), token: .noToken, resultsLimit: 1,
                        capture: "first")),
                    at: SourceLocation(file: file, line: 13, column: 5)),
                Step(
                    .expect(.lastFetch(LastFetchExpectation(records: [ExpectedRecord("note-1")], moreComing: false))),
                    at: SourceLocation(file: file, line: 14, column: 14)),
            ])
        #expect(scenario == expected)
        #expect(scenario.isLesson)
        #expect(scenario.warnings.isEmpty)
        #expect(scenario.server == ServerSetup(retention: nil, coalescingWindowMs: 200, pushLatencyMs: 50, container: nil))
    }

    @Test func aScenarioWithoutSayStepsIsNotALesson() throws {
        let yaml = Self.firstFetch.replacingOccurrences(
            of: "  - say: \"Alice's iPhone creates a zone and saves two notes.\"\n", with: "")
        let scenario = try ScenarioParser.parse(yaml: yaml, fileName: "x.yaml")
        #expect(!scenario.isLesson)
        #expect(scenario.steps.count == 5)
    }

    @Test func theNameDefaultsToTheFileNameWithoutExtension() throws {
        let yaml = Self.firstFetch.replacingOccurrences(of: "name: first-fetch\n", with: "")
        let scenario = try ScenarioParser.parse(yaml: yaml, fileName: "lessons/02-tokens.yaml")
        #expect(scenario.name == "02-tokens")
    }

    @Test func parsingAFileLabelsDiagnosticsWithItsPath() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscenario-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.yaml")
        try Self.firstFetch.write(to: good, atomically: true, encoding: .utf8)
        #expect(try ScenarioParser.parse(fileAt: good).steps.count == 6)

        let bad = directory.appendingPathComponent("bad.yaml")
        try Self.firstFetch.replacingOccurrences(of: "send: iPhone", with: "send: iPad").write(to: bad, atomically: true, encoding: .utf8)
        #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(fileAt: bad) }
        do {
            _ = try ScenarioParser.parse(fileAt: bad)
        } catch {
            #expect(error.description == "\(bad.path):12:11: error: device 'iPad' is not declared; declared devices: iPhone, Mac")
        }
    }

    @Test func aMissingFileIsAnErrorNotACrash() {
        let url = URL(fileURLWithPath: "/nonexistent/dir/lesson.yaml")
        do {
            _ = try ScenarioParser.parse(fileAt: url)
            Issue.record("parsed a file that does not exist")
        } catch {
            #expect(error.description == "/nonexistent/dir/lesson.yaml: error: no such file")
        }
    }
}
