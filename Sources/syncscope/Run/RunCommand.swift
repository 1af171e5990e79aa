import ArgumentParser
import Foundation
import SyncScenario
import SyncScenarioRunner

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

    @Option(parsing: .unconditional, help: "Seed for the run (default: the file's seed).")
    var seed: UInt64?

    @Flag(help: "Print one JSON object per event instead of text.")
    var json = false

    func run() async throws {
        let scenario: Scenario
        do {
            scenario = try ScenarioLocator.load(file)
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

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
