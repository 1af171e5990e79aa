import Foundation
import Testing
@testable import SyncScenario

@Suite("Broken files never crash the parser")
struct RobustnessTests {
    static func example() throws -> String {
        try DocumentationTests.yamlBlocks().first { $0.hasPrefix("name:") } ?? ""
    }

    /// Parses `yaml`; on failure, checks each diagnostic points inside the file.
    static func check(_ yaml: String, _ label: String) {
        let lineCount = yaml.split(separator: "\n", omittingEmptySubsequences: false).count
        do {
            _ = try ScenarioParser.parse(yaml: yaml, fileName: "m.yaml")
        } catch {
            #expect(!error.errors.isEmpty, "\(label): threw without an error")
            for diagnostic in error.diagnostics {
                #expect((0...lineCount).contains(diagnostic.location.line), "\(label): \(diagnostic)")
                #expect(!diagnostic.message.isEmpty, "\(label)")
            }
            let sorted = error.diagnostics.map(\.location).sorted()
            #expect(error.diagnostics.map(\.location) == sorted, "\(label): diagnostics out of file order")
        }
    }

    @Test func removingAnyLineOfTheExampleGivesErrorsInsideTheFile() throws {
        let lines = try Self.example().split(separator: "\n", omittingEmptySubsequences: false)
        for index in lines.indices {
            var mutated = lines
            mutated.remove(at: index)
            Self.check(mutated.joined(separator: "\n"), "without line \(index + 1)")
        }
    }

    @Test func cuttingTheExampleAnywhereGivesErrorsInsideTheFile() throws {
        let example = try Self.example()
        var index = example.startIndex
        var step = 0
        while index < example.endIndex {
            if step % 7 == 0 { Self.check(String(example[..<index]), "cut at \(step)") }
            index = example.index(after: index)
            step += 1
        }
    }

    @Test func replacingValuesWithOtherShapesGivesErrorsInsideTheFile() throws {
        let example = try Self.example()
        for replacement in ["[]", "{}", "~", "\"\"", "[[1]]", "{a: {b: c}}", "-1", "&x y", "*missing"] {
            for key in ["device: ", "zone: ", "token: ", "fields: ", "records: ", "count: ", "participants: ", "type: "] {
                guard let range = example.range(of: key) else { continue }
                var mutated = example
                let end = mutated[range.upperBound...].firstIndex { $0 == "," || $0 == "}" || $0 == "\n" } ?? mutated.endIndex
                mutated.replaceSubrange(range.upperBound..<end, with: replacement)
                Self.check(mutated, "\(key)\(replacement)")
            }
        }
    }
}
