import ArgumentParser
import Foundation
import SyncScenario
import SyncScopeAssets

struct LessonsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lessons",
        abstract: "List the lessons: number, name and title; with a NAME, print that lesson's file.",
        discussion: """
            Run one headless with `syncscope run NAME` (or its number), or play it in the inspector \
            with `syncscope lesson NAME`. `syncscope lessons NAME` prints the lesson as written, \
            to read or to start a lesson of your own from.
            """
    )

    @Argument(help: "A lesson's name or number: print its file.")
    var name: String?

    func run() throws {
        if let name {
            guard let url = AssetCatalog.lesson(named: name), let text = try? String(contentsOf: url, encoding: .utf8) else {
                let names = AssetCatalog.lessons().map { AssetCatalog.shortName(of: $0.name) }
                let hint = Suggestions.closest(to: name, in: names).map { "; did you mean '\($0)'?" } ?? "; see `syncscope lessons`"
                printError("error: no lesson '\(name)'\(hint)")
                throw ExitCode(2)
            }
            print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            return
        }
        let lessons = AssetCatalog.lessons()
        guard !lessons.isEmpty else {
            printError("error: no lessons found; the SyncScopeAssets resources are missing from this build")
            throw ExitCode(1)
        }
        let width = lessons.map { AssetCatalog.shortName(of: $0.name).count }.max() ?? 0
        for lesson in lessons {
            let number = AssetCatalog.lessonNumber(of: lesson.name).map { String($0) } ?? "-"
            let name = AssetCatalog.shortName(of: lesson.name)
            let title: String
            do {
                title = try ScenarioParser.parse(fileAt: lesson.url).title ?? ""
            } catch {
                title = "(cannot be read: \(error.errors.first?.message ?? "unknown problem"))"
            }
            let paddedNumber = String(repeating: " ", count: max(0, 2 - number.count)) + number
            let paddedName = name + String(repeating: " ", count: width - name.count)
            print("\(paddedNumber)  \(paddedName)  \(title)")
        }
    }
}
