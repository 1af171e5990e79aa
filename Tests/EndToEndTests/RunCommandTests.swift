import Foundation
import Testing

/// `syncscope run` on files written for the test: exit codes, messages, determinism.
@Suite struct RunCommandTests {
    /// Writes `yaml` to a fresh file and returns its path.
    static func file(_ yaml: String, name: String = "scenario.yaml") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static let passing = """
        users: [alice]
        devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
        steps:
          - createZone: {device: iPhone, zone: Notes}
          - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: One}}
          - send: iPhone
          - fetch: {device: Mac, zone: Notes, token: nil}
          - expect: {lastFetch: {records: [note-1]}}

        """

    @Test func aFileWithMistakesExitsWithTwoAndListsEachProblemWithItsLine() throws {
        let path = try Self.file("""
            users: [alice]
            devices: [{name: Mac, user: alice}]
            steps:
              - fetch: {device: Mac, zone: Notes, resultLimit: 3}
              - sned: Mac
            """, name: "broken.yaml")
        let result = try BinaryRunner.run(["run", path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("broken.yaml:4:39: error: unknown key 'resultLimit' in fetch; did you mean 'resultsLimit'?"))
        #expect(result.stderr.contains("broken.yaml:5:5: error: unknown step 'sned'; did you mean 'send'?"))
        #expect(result.stderr.contains("2 errors"))
    }

    @Test func yamlThatDoesNotParseExitsWithTwo() throws {
        let path = try Self.file("steps:\n  - fetch: {device: Mac\n", name: "unclosed.yaml")
        let result = try BinaryRunner.run(["run", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unclosed.yaml:"))
        #expect(result.stderr.contains("invalid YAML"))
    }

    @Test func aFileThatDoesNotExistExitsWithTwoAndSaysSo() throws {
        let result = try BinaryRunner.run(["run", "/nonexistent/lesson.yaml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/lesson.yaml: error: no such file"))
        let unknown = try BinaryRunner.run(["run", "no-such-lesson"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no such file, and no lesson of that name"))
        #expect(unknown.stderr.contains("first-fetch"))
    }

    @Test func aNegativeSeedIsReportedAsAnInvalidValueNotAMissingOne() throws {
        let result = try BinaryRunner.run(["run", "1", "--seed", "-1"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("The value '-1' is invalid for '--seed"))
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test func aCheckThatDoesNotHoldExitsWithOneAndNamesTheLine() throws {
        let path = try Self.file(Self.passing.replacingOccurrences(of: "records: [note-1]", with: "records: [note-9]"), name: "wrong.yaml")
        let result = try BinaryRunner.run(["run", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("wrong.yaml:8:14: error: lastFetch failed: Mac's last fetch: records: expected [note-9], got [note-1]"))
        #expect(result.stdout.contains("\nFAIL: "))
    }

    @Test func aPassingFileExitsWithZeroAndTheSameSeedPrintsTheSameBytes() throws {
        let path = try Self.file(Self.passing)
        let first = try BinaryRunner.run(["run", path, "--seed", "9"])
        let second = try BinaryRunner.run(["run", path, "--seed", "9"])
        let other = try BinaryRunner.run(["run", path, "--seed", "10"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout == second.stdout)
        #expect(first.stdout != other.stdout)
        #expect(other.status == 0)
    }

    @Test func jsonPrintsOneParseableObjectPerLine() throws {
        let path = try Self.file(Self.passing)
        let result = try BinaryRunner.run(["run", path, "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        var events: [String] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            events.append(object?["event"] as? String ?? "?")
        }
        #expect(events.first == "scenario")
        #expect(events.last == "finished")
        #expect(events.contains("zoneChanges"))
        #expect(events.contains("recordsSent"))
        #expect(events.filter { $0 == "step" }.count == 5)
    }
}
