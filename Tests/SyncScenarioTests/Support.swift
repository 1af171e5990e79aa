import Foundation
import SyncCore
import Testing
@testable import SyncScenario

/// Users and devices most tests share; steps start on line 8.
let prelude = """
    users: [alice, bob]
    devices:
      - {name: iPhone, user: alice}
      - {name: Mac, user: alice}
      - {name: Pixel, user: bob}
    steps:
      - createZone: {device: iPhone, zone: Notes}

    """

/// The steps written after the prelude's `createZone`.
func kinds(_ steps: String) throws -> [StepKind] {
    let scenario = try ScenarioParser.parse(yaml: prelude + steps, fileName: "steps.yaml")
    return scenario.steps.dropFirst().map(\.kind)
}

/// The one step written after the prelude's `createZone`.
func kind(_ step: String) throws -> StepKind? {
    try kinds(step).first
}

/// The rendered diagnostics of a file that must fail to parse.
func problems(_ yaml: String, fileName: String = "lesson.yaml") -> [String] {
    do {
        let scenario = try ScenarioParser.parse(yaml: yaml, fileName: fileName)
        return ["parsed without errors: \(scenario.name)"]
    } catch {
        return error.diagnostics.map(\.description)
    }
}

/// The rendered diagnostics of steps after the prelude (steps start at line 8).
func stepProblems(_ steps: String) -> [String] {
    problems(prelude + steps, fileName: "steps.yaml")
}
