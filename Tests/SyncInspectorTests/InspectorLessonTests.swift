import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncScopeAssets
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// A lesson played in the inspector: Enter runs the next step, b starts again.
@Suite("Inspector lessons")
struct InspectorLessonTests {
    func makeLesson(size: Size = Size(width: 100, height: 30)) async throws -> InspectorController {
        let scenario = try ScenarioParser.parse(yaml: tinyLessonYAML, fileName: "tiny.yaml")
        let lesson = try LessonSession(scenario: scenario)
        return await InspectorController(simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: size, realClock: FakeRealClock())
    }

    func lessonPane(_ inspector: InspectorController) throws -> [String] {
        let rect = try #require(inspector.state.layout.lesson)
        return Array(inspector.lines[rect.y..<rect.maxY])
    }

    @Test func theLessonPaneTellsTheStoryAndEnterRunsEachStep() async throws {
        let inspector = try await makeLesson()
        var pane = try lessonPane(inspector).joined(separator: "\n")
        #expect(pane.contains("Lesson · step 0 of 8 · A tiny lesson"), "\(pane)")
        #expect(pane.contains("The Mac fetches what the iPhone saved."))
        #expect(pane.contains("Enter: narrative"))

        await inspector.press(.enter)
        pane = try lessonPane(inspector).joined(separator: "\n")
        #expect(pane.contains("The iPhone creates Notes and saves a note."), "\(pane)")
        #expect(pane.contains("Enter: createZone:"), "\(pane)")
        #expect(inspector.state.message?.text.contains("Step 1 of 8") == true)

        for _ in 0..<3 { await inspector.press(.enter) }
        // Notes appeared and is shown without the person choosing it.
        #expect(inspector.state.zone?.zoneID == RecordZoneID(zoneName: "Notes", ownerName: "alice"))
        #expect(inspector.pane(.records).line(containing: "note-1") != nil, "\(inspector.lines.joined(separator: "\n"))")

        await inspector.press(.enter, .enter)  // the narrative, then the Mac's fetch step
        try await inspector.focus("Mac")
        pane = try lessonPane(inspector).joined(separator: "\n")
        #expect(pane.contains("Mac <- changes/zone Notes, batch 1: 1 record"), "\(pane)")
        // The step's fetch is not the engine's, yet its token is in the Mac's history.
        let tokens = inspector.pane(.tokens)
        #expect(tokens.line(containing: "Notes")?.contains("1") == true, "\(inspector.lines.joined(separator: "\n"))")
        #expect(inspector.state.snapshot.tokenTotal == 1)

        await inspector.press(.enter)
        #expect(inspector.state.message?.kind == .success)
        await inspector.press(.enter)
        #expect(inspector.state.message?.kind == .error)
        #expect(inspector.state.message?.text.contains("did not hold") == true, "\(String(describing: inspector.state.message))")
        // The end screen covers the panes; Esc closes it and the lesson pane says it is over.
        #expect(inspector.state.lessonMode.showsSummary)
        await inspector.press(.escape)
        pane = try lessonPane(inspector).joined(separator: "\n")
        #expect(pane.contains("✗ "), "\(pane)")
        #expect(pane.contains("Lesson over: b starts again · t steps · q quits"), "\(pane)")
        await inspector.press(.enter)
        #expect(inspector.state.message?.text.hasPrefix("The lesson is over") == true)
    }

    @Test func bGoesBackToTheStartWithAFreshWorld() async throws {
        let inspector = try await makeLesson()
        for _ in 0..<6 { await inspector.press(.enter) }
        let before = inspector.simulation
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).count == 1)
        await inspector.press(.character("b"))
        #expect(inspector.simulation !== before)
        #expect(inspector.state.snapshot.lesson?.stepsRun == 0)
        #expect(inspector.state.snapshot.tokenTotal == 0)
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).isEmpty == true)
        #expect(try lessonPane(inspector).joined().contains("step 0 of 8"))
        #expect(inspector.state.message?.text.hasPrefix("Back to the start") == true)
        // The fresh world is watched: its events reach the inspector.
        for _ in 0..<4 { await inspector.press(.enter) }
        #expect(inspector.state.snapshot.records.rows.map(\.name) == ["note-1"])
    }

    /// In lesson works-in-development the Simulator talks to development and
    /// the TestFlight build to production: each device's panes show its own
    /// environment's zones and records (the two never share data), and the
    /// `✗prod` mark only on what that environment holds.
    @Test func eachDeviceShowsItsOwnEnvironmentsRecords() async throws {
        let lesson = try LessonSession(scenario: try ScenarioLocator.load("18-works-in-development"))
        let inspector = await InspectorController(
            simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: Size(width: 120, height: 40), realClock: FakeRealClock())
        func play(to stepsRun: Int) async {
            for _ in 0..<100 where lesson.stepsRun < stepsRun { await inspector.press(.enter) }
            #expect(lesson.stepsRun == stepsRun)
        }
        func rows(of device: String) async throws -> [String] {
            try await inspector.focus(device)
            try await inspector.selectZone("Notes")
            func title(_ record: Record?) -> String {
                guard case .string(let title)? = record?.fields["title"] else { return "—" }
                return "\"\(title)\""
            }
            return inspector.state.snapshot.records.rows.map { "\($0.name) srv \(title($0.server)) dev \(title($0.device))" }
        }
        func productionMarks() -> [String] {
            inspector.pane(.records).filter { $0.contains("✗p") }  // "✗prod", cut to "✗p…" in a narrow type column
        }

        // TestFlight saved note-2 but could not send it: production's Notes is
        // empty, development's holds the Simulator's note-1.
        await play(to: 10)
        #expect(try await rows(of: "TestFlight") == [#"note-2 srv — dev "Milk""#])
        #expect(try await rows(of: "Simulator") == [#"note-1 srv "Groceries" dev "Groceries""#])

        // Deployed and sent: production holds note-2, and only that.
        await play(to: 16)
        #expect(try await rows(of: "TestFlight") == [#"note-2 srv "Milk" dev "Milk""#])

        // The Simulator saves done in development, which production's Note
        // lacks: its note-1 is marked, the TestFlight build's note-2 is not.
        await play(to: 21)
        #expect(try await rows(of: "Simulator") == [#"note-1 srv "Groceries" dev "Groceries""#])
        #expect(productionMarks().count == 1 && productionMarks().first?.contains("note-1") == true, "\(inspector.lines.joined(separator: "\n"))")
        #expect(try await rows(of: "TestFlight") == [#"note-2 srv "Milk" dev "Milk""#])
        #expect(productionMarks().isEmpty, "\(inspector.lines.joined(separator: "\n"))")
    }

    @Test func everyShippedLessonPlaysToItsEndInTheInspector() async throws {
        let lessons = AssetCatalog.lessons()
        #expect(!lessons.isEmpty)
        for (name, _) in lessons {
            let lesson = try LessonSession(scenario: try ScenarioLocator.load(name))
            let inspector = await InspectorController(
                simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: Size(width: 80, height: 24), realClock: FakeRealClock())
            var presses = 0
            while !lesson.isFinished && presses < 500 {
                await inspector.press(.enter)
                presses += 1
                #expect(inspector.state.message?.kind != .error, "\(name): \(inspector.state.message?.text ?? "")")
                #expect(inspector.lines.count == 24)
            }
            #expect(lesson.isFinished, "\(name) did not finish")
        }
    }
}
