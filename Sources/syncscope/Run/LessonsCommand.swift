import ArgumentParser
import SyncScenario
import SyncScopeAssets

struct LessonsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lessons",
        abstract: "List the lessons: number, name and title.",
        discussion: "Run one headless with `syncscope run NAME` (or its number)."
    )

    func run() throws {
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
