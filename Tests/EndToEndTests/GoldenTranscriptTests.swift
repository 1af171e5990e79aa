import Foundation
import Testing

/// Whole transcripts of some lessons, compared byte for byte with files kept
/// next to this one. After a deliberate change, regenerate them with
/// `SYNCSCOPE_UPDATE_GOLDENS=1 swift test --filter GoldenTranscriptTests` and
/// read the difference before committing it.
@Suite struct GoldenTranscriptTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

    static func check(_ arguments: [String], golden name: String) throws {
        let result = try BinaryRunner.run(arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["SYNCSCOPE_UPDATE_GOLDENS"] == "1" {
            try result.stdout.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        if result.stdout != golden {
            let got = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let want = golden.split(separator: "\n", omittingEmptySubsequences: false)
            let line = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, want.count)
            Issue.record("""
                \(name) differs first at line \(line + 1):
                  golden: \(line < want.count ? String(want[line]) : "(end)")
                  now:    \(line < got.count ? String(got[line]) : "(end)")
                """)
        }
    }

    @Test func theFirstFetchLessonPrintsItsGoldenTranscript() throws {
        try Self.check(["run", "first-fetch"], golden: "01-first-fetch.txt")
    }

    @Test func theTokenBeforeDataLessonPrintsItsGoldenTranscript() throws {
        try Self.check(["run", "token-before-data"], golden: "11-token-before-data.txt")
    }

    @Test func theWorksInDevelopmentLessonPrintsItsGoldenTranscript() throws {
        try Self.check(["run", "works-in-development"], golden: "18-works-in-development.txt")
    }

    @Test func theSharingLessonPrintsItsGoldenTranscript() throws {
        try Self.check(["run", "sharing"], golden: "22-sharing.txt")
    }

    @Test func theCoalescedNotificationsLessonPrintsItsGoldenJSON() throws {
        try Self.check(["run", "coalesced-notifications", "--json"], golden: "07-coalesced-notifications.jsonl")
    }
}
