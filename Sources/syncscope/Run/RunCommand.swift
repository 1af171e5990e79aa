import ArgumentParser
import Foundation
import SyncInspector
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

    @Option(help: ArgumentHelp(
        "Also write the transcript as an asciinema v2 recording (text, paced for reading), for slides.", valueName: "file.cast"))
    var cast: String?

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
        let recording: TranscriptCast?
        do {
            recording = try cast.map { path throws(AsciicastError) in
                try TranscriptCast(path: path, title: scenario.title ?? scenario.name)
            }
        } catch {
            printError("\(file): error: \(error)")
            throw ExitCode(2)
        }
        let json = json
        var castError: AsciicastError?
        runner.transcriptObserver = { event in
            let text = TranscriptFormatter.text(event)
            if json {
                if let line = TranscriptFormatter.json(event) { print(line) }
            } else if let text {
                print(text)
            }
            // The recording, for slides, also has the presenter's notes.
            if let recording, let text = TranscriptFormatter.castText(event), castError == nil {
                do throws(AsciicastError) { try recording.add(event, text: text) } catch { castError = error }
            }
        }
        let failure = await runner.runToEnd()
        if let castError {
            printError("\(file): error: \(castError)")
            throw ExitCode(1)
        }
        if let failure {
            printError(failure.description)
            throw ExitCode(1)
        }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
