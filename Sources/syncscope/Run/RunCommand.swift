import ArgumentParser
import Foundation
import SyncScenario
import SyncScenarioRunner
import SyncScopeAssets

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario or lesson file headless and check what it expects.",
        discussion: """
            Prints each step, every token issued (short form), the records and deletions \
            each fetch returned and the notifications delivered. FILE is a path, or the \
            name or number of a lesson (see `syncscope lessons`). The same file and seed \
            print the same transcript, byte for byte.

            Exit status: 0 when every check holds, 1 when a check does not hold or a step \
            fails unexpectedly, 2 when the file cannot be read (its problems are printed \
            to standard error).
            """
    )

    @Argument(help: "The scenario file, or a lesson's name or number.")
    var file: String

    @Option(help: "Seed for the run (default: the file's seed).")
    var seed: UInt64?

    @Flag(help: "Print one JSON object per event instead of text.")
    var json = false

    func run() async throws {
        let scenario: Scenario
        do {
            scenario = try ScenarioSource.load(file)
        } catch {
            printError(error.rendered())
            throw ExitCode(2)
        }
        for warning in scenario.warnings { printError(warning.description) }

        let runner: ScenarioRunner
        do {
            runner = try ScenarioRunner(scenario: scenario, seed: seed)
        } catch {
            printError("\(file): error: the scenario's world cannot be built: \(error)")
            throw ExitCode(1)
        }
        let json = json
        runner.transcriptObserver = { event in
            if json {
                print(TranscriptFormatter.json(event))
            } else if let text = TranscriptFormatter.text(event) {
                print(text)
            }
        }
        if let failure = await runner.runToEnd() {
            printError(failure.description)
            throw ExitCode(1)
        }
    }
}

/// Finds the scenario a command line names: a file, or a lesson.
enum ScenarioSource {
    static func load(_ name: String) throws(ScenarioFileError) -> Scenario {
        if FileManager.default.fileExists(atPath: name) || name.contains("/") {
            return try ScenarioParser.parse(fileAt: URL(fileURLWithPath: name))
        }
        if let url = AssetCatalog.lesson(named: name) {
            // Diagnostics and transcripts name a lesson the same way wherever it is installed.
            let display = "lessons/" + url.lastPathComponent
            guard let data = try? Data(contentsOf: url), let yaml = String(data: data, encoding: .utf8) else {
                throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
                    .error, at: SourceLocation(file: display, line: 0, column: 0), "cannot read the lesson file")])
            }
            return try ScenarioParser.parse(yaml: yaml, fileName: display)
        }
        let lessons = AssetCatalog.lessons().map { AssetCatalog.shortName(of: $0.name) }
        throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
            .error, at: SourceLocation(file: name, line: 0, column: 0), "no such file, and no lesson of that name",
            hint: lessons.isEmpty ? nil : "lessons: \(lessons.joined(separator: ", ")); see `syncscope lessons`")])
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
