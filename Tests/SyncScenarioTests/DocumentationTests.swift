import Foundation
import Testing
@testable import SyncScenario

@Suite("The format's documentation")
struct DocumentationTests {
    static let articleURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SyncScenario/SyncScenario.docc/ScenarioFormat.md")

    static func article() throws -> String {
        try String(contentsOf: articleURL, encoding: .utf8)
    }

    /// The YAML code blocks of the article.
    static func yamlBlocks() throws -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in try article().split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```yaml" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current.map { $0.joined(separator: "\n") } ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theCompleteExampleParsesWithoutErrorsOrWarnings() throws {
        let complete = try Self.yamlBlocks().filter { $0.hasPrefix("name:") }
        #expect(complete.count == 1)
        for yaml in complete {
            let scenario = try ScenarioParser.parse(yaml: yaml, fileName: "ScenarioFormat.md")
            #expect(scenario.warnings.isEmpty)
            #expect(scenario.isLesson)
            // The example shows every kind of check.
            let used = Set(scenario.steps.map(\.kind.name))
            #expect(Set(ScenarioReader.expectationNames).subtracting(used).isEmpty)
        }
    }

    @Test func everyStepExampleParses() throws {
        let steps = try Self.yamlBlocks().filter { $0.hasPrefix("- ") }
        for name in ScenarioReader.stepNames where name != "expect" {
            #expect(steps.contains { $0.hasPrefix("- \(name):") }, "no example of \(name)")
        }
        for name in ScenarioReader.expectationNames {
            #expect(steps.contains { $0.hasPrefix("- expect: {\(name):") }, "no example of \(name)")
        }
        let setup = """
            users: [alice, bob]
            devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}, {name: Pixel, user: bob}]
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - fetch: {device: Mac, zone: Notes, capture: first}
              - send: iPhone

            """
        for block in steps {
            let indented = block.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
            #expect(throws: Never.self, "\(block)") { try ScenarioParser.parse(yaml: setup + indented + "\n", fileName: "doc.yaml") }
        }
    }

    @Test func theFieldTypeExampleParses() throws {
        let blocks = try Self.yamlBlocks().filter { $0.hasPrefix("fields:") }
        #expect(blocks.count == 1)
        for block in blocks {
            let indented = block.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n")
            let yaml = prelude + "  - save:\n      device: iPhone\n      zone: Notes\n      record: r\n" + indented + "\n"
            let scenario = try ScenarioParser.parse(yaml: yaml, fileName: "doc.yaml")
            guard case .save(let save)? = scenario.steps.last?.kind else {
                Issue.record("the field example is not a save")
                continue
            }
            #expect(save.fields.count == 10)
        }
    }

    @Test func everyStepAndCheckHasItsOwnSection() throws {
        let article = try Self.article()
        for name in ScenarioReader.stepNames + ScenarioReader.expectationNames {
            #expect(article.contains("### `\(name)`"), "no section for \(name)")
        }
    }
}
