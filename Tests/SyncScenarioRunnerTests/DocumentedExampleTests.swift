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
}
