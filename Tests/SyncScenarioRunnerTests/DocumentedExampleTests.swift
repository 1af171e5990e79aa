import Foundation
import SyncScenario
import Testing
@testable import SyncScenarioRunner

@Suite("The format documentation's example")
struct DocumentedExampleTests {
    static let articleURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SyncScenario/SyncScenario.docc/ScenarioFormat.md")

    @Test func theCompleteLessonInTheFormatArticleRunsAndEveryCheckHolds() async throws {
        let article = try String(contentsOf: Self.articleURL, encoding: .utf8)
        let start = try #require(article.range(of: "```yaml\nname: token-expiry"))
        let end = try #require(article.range(of: "```", range: start.upperBound..<article.endIndex))
        let yaml = String(article[article.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])
        let runner = try ScenarioRunner(scenario: try ScenarioParser.parse(yaml: yaml, fileName: "ScenarioFormat.md"))
        let failure = await runner.runToEnd()
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(runner.checksPassed >= 10)
    }

    @Test func booleansAreDocumentedAndShownAsTheInt64ValuesCloudKitStores() async throws {
        let article = try String(contentsOf: Self.articleURL, encoding: .utf8)
        #expect(article.contains("`done: false` shows as `done=0`"))
        let (text, failure) = await textTranscript(try runner("""
            users: [alice]
            devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {done: false, starred: true}}
              - send: iPhone
              - fetch: {device: Mac, zone: Notes, token: nil}
            """))
        #expect(failure == nil)
        #expect(text.contains("done=0"))
        #expect(text.contains("starred=1"))
    }
}
