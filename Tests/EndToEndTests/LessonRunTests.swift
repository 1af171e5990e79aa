import Foundation
import Testing

/// The lessons as shipped, run through the built `syncscope run` as a person would.
@Suite struct LessonRunTests {
    static let lessons = [
        "01-first-fetch", "02-two-kinds-of-token", "03-batches", "04-latest-state", "05-zone-removals",
        "06-expired-token", "07-coalesced-notifications", "08-query-subscriptions", "09-conflicts", "10-shared-database",
        "11-token-before-data", "12-zone-gone", "13-over-400", "14-default-zone", "15-account-change",
        "16-rate-limiting", "17-lost-and-early-pushes", "18-works-in-development", "19-query-indexes",
        "20-duplicates-after-reinstall", "21-sync-engine-events", "22-sharing",
    ]

    @Test(arguments: lessons)
    func everyLessonRunsAndEveryCheckHolds(_ lesson: String) throws {
        let result = try BinaryRunner.run(["run", lesson])
        #expect(result.status == 0, "\(lesson): \(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("\nPASS: all "))
        #expect(result.stdout.hasPrefix("== "))
    }

    /// The same lesson and seed print the same transcript, byte for byte.
    @Test(arguments: lessons)
    func everyLessonPrintsTheSameTranscriptEveryTime(_ lesson: String) throws {
        let first = try BinaryRunner.run(["run", lesson])
        let second = try BinaryRunner.run(["run", lesson])
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
    }

    @Test func lessonsListsNumberNameAndTitleOfEachLessonInOrder() throws {
        let result = try BinaryRunner.run(["lessons"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == Self.lessons.count)
        #expect(lines.first?.hasPrefix(" 1  first-fetch ") == true)
        #expect(lines.first?.hasSuffix("First fetch: no token, then only what changed") == true)
        #expect(lines.last?.hasPrefix("22  sharing ") == true)
        for (line, lesson) in zip(lines, Self.lessons) {
            let shortName = String(lesson.drop { $0 != "-" }.dropFirst())
            #expect(line.contains(" \(shortName) "), "\(line)")
        }
    }

    @Test func aLessonCanBeNamedByItsShortNameOrNumber() throws {
        let byNumber = try BinaryRunner.run(["run", "4"])
        let byName = try BinaryRunner.run(["run", "latest-state"])
        #expect(byNumber.status == 0)
        #expect(byNumber.stdout == byName.stdout)
        #expect(byName.stdout.hasPrefix("== latest-state: "))
    }
}
