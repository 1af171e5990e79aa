import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncInspectorWorlds
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct LessonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lesson",
        abstract: "Play a lesson in the inspector, one step at a time.",
        discussion: """
            NAME is a lesson's name or number (see `syncscope lessons`) or a scenario file. \
            The lesson pane tells the story; Enter runs the next step and the panes show \
            what it did; p steps back, t lists the steps to jump to one, b goes back to the \
            start. The focused device follows each step (m pins it). The clock stays paused \
            unless you run it (Space), so the lesson plays exactly as written. With --record, \
            what the terminal shows is saved as an asciinema v2 recording, for slides.

            With --present (or F5 / Ctrl-P at any time), the presenter layout, for a projector: \
            the narration large, wrapped to its pane and scrolled with j/k; the panes the step \
            touches enlarged and the others shrunk to their title; the step's client code \
            (Swift, CloudKit's API) beside it; questions for the room (A shows the answer) and \
            the presenter's notes. It draws on screens down to 40×12.
            """
    )

    @Argument(help: "The lesson's name or number, or a scenario file.")
    var name: String

    @Option(help: "Seed for the run (default: the lesson's).")
    var seed: UInt64?

    @Option(help: "Write a log of every event, key and action to this file.")
    var log: String?

    @Option(help: ArgumentHelp("Record what the terminal shows, with real timings, as an asciinema v2 file.", valueName: "file.cast"))
    var record: String?

    @Flag(help: "Open in the presenter layout, for a projector (F5 or Ctrl-P toggles it).")
    var present = false

    func run() async throws {
        try InspectorLauncher.requireTerminal(hint: "try `syncscope run \(name)` for the headless version")
        let scenario: Scenario
        do {
            scenario = try ScenarioLocator.load(name)
        } catch {
            InspectorLauncher.printError(error.rendered())
            throw ExitCode(2)
        }
        let seed = seed
        try await InspectorLauncher.run(
            paused: true, speed: 1, logPath: log, recordPath: record, title: scenario.title ?? scenario.name, presenting: present
        ) {
            let lesson = try LessonSession(scenario: scenario, seed: seed)
            return (lesson.simulation, lesson, nil)
        }
    }
}
