import Foundation
import Testing

/// What a newcomer typed wrong on the command line (issue 27, point 14),
/// run on the binary: each slip names what was meant, and fails.
@Suite struct CommandSlipTests {
    @Test func aMistypedCommandSuggestsTheCommand() throws {
        let result = try BinaryRunner.run(["lesosn", "06"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("there is no command 'lesosn'; did you mean 'lesson'? (syncscope lesson 06)"), "\(result.stderr)")
        #expect(!result.stderr.contains("unexpected argument"), "\(result.stderr)")
        #expect(!result.stderr.contains("syncscope inspect"), "\(result.stderr)")
    }

    @Test func helpForAMistypedCommandSuggestsItAndFails() throws {
        let result = try BinaryRunner.run(["help", "lesosn"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains("did you mean 'lesson'?"), "\(result.stderr)")
        // A real command's help is the parser's, as before.
        let lesson = try BinaryRunner.run(["help", "lesson"])
        #expect(lesson.status == 0)
        #expect(lesson.stdout.contains("Play a lesson in the inspector"))
    }

    /// The API reference reaches a user of the binary: no source checkout needed.
    @Test func helpAPIPrintsTheReferenceTheProgramCarries() throws {
        let result = try BinaryRunner.run(["help", "api"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("# The Web Services API"), "\(result.stdout.prefix(200))")
        #expect(result.stdout.contains("records/modify"))
        let serve = try BinaryRunner.run(["help", "serve"])
        let words = serve.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("`syncscope help api` prints its reference"), "\(serve.stdout)")
        for text in [serve.stdout, try BinaryRunner.run(["help", "run"]).stdout, try BinaryRunner.run(["help"]).stdout] {
            #expect(!text.contains("Sources/"), "\(text)")
            #expect(!text.contains(".docc"), "\(text)")
        }
    }

    /// `run` names a shipped lesson by its name, not a path the user does not have;
    /// `--json` gives the seed as a number.
    @Test func runNamesALessonByNameAndItsSeedIsANumber() throws {
        let text = try BinaryRunner.run(["run", "06"])
        #expect(text.stdout.contains("   lesson expired-token, seed 6\n"), "\(text.stdout.prefix(300))")
        #expect(!text.stdout.contains("lessons/"))
        let json = try BinaryRunner.run(["run", "06", "--json"])
        let first = try #require(json.stdout.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["seed"] as? Int == 6, "\(first)")
        #expect(object["file"] as? String == "lesson expired-token")
        // And the lesson itself can be read.
        let file = try BinaryRunner.run(["lessons", "expired-token"])
        #expect(file.status == 0)
        #expect(file.stdout.hasPrefix("name: expired-token\n"), "\(file.stdout.prefix(100))")
    }

    @Test func aDataFolderInsideAFileIsSaidInASentence() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("slip-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try BinaryRunner.run(["serve", "--port", "0", "--data", file.appendingPathComponent("sub").path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(file.path) is a file, not a folder, so no folder can be made inside it."), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    }
}
