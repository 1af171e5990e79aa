import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// Lesson 22 (sharing) on one screen: alice's iPhone and bob's iPad, the
/// share and its participants in the zones pane as the lesson walks invite →
/// resolve → accept → both write → remove, in the normal and presenter layouts.
@Suite("Sharing lesson on screen")
struct SharingLessonTests {
    static let size = Size(width: 120, height: 40)

    func inspector(presenting: Bool = false) async throws -> (InspectorController, LessonSession) {
        let lesson = try LessonSession(scenario: try ScenarioLocator.load("sharing"))
        let inspector = await InspectorController(
            simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: Self.size, theme: .colored, realClock: FakeRealClock())
        if presenting { inspector.startPresenting() }
        return (inspector, lesson)
    }

    /// Runs steps with Enter until the step at `index` has run.
    func run(_ inspector: InspectorController, _ lesson: LessonSession, through index: Int) async {
        while lesson.stepsRun <= index && !lesson.isFinished { await inspector.press(.enter) }
        #expect(lesson.failureMessage == nil)
    }

    /// The zones pane's share lines, as text.
    func shareLines(_ inspector: InspectorController) -> [String] {
        inspector.state.snapshot.zones.compactMap { if case .share(let line) = $0 { line.text } else { nil } }
    }

    @Test func bothUsersSeeTheSharedZoneAfterBothWrote() async throws {
        let (inspector, lesson) = try await inspector()
        let steps = lesson.scenario.steps
        // Invited, not accepted yet: alice sees bob PENDING.
        await run(inspector, lesson, through: try #require(steps.firstIndex { if case .saveShare = $0.kind { true } else { false } }))
        try await inspector.focus("iPhone")
        #expect(shareLines(inspector).contains("    bob   READ_WRITE PENDING PRIVATE_USER"))
        // After both wrote: the iPad's sync and the check after it.
        let iPadSync = try #require(steps.firstIndex { $0.kind == .sync(device: "iPad") })
        await run(inspector, lesson, through: iPadSync + 1)
        try await inspector.focus("iPhone")
        #expect(shareLines(inspector).contains("    bob   READ_WRITE ACCEPTED PRIVATE_USER"))
        try ScreenGolden.check(inspector.frame(), title: "sharing lesson, alice · colored", file: "sharing-lesson-alice-120x40-colored.golden")
        try await inspector.focus("iPad")
        #expect(inspector.state.snapshot.zones.contains { $0.entry?.displayName(for: "bob") == "Trip@alice" && $0.entry?.scope == .shared })
        #expect(shareLines(inspector).first?.hasPrefix("  ⤷ shared by alice · zone-wide · public NONE") == true)
        try ScreenGolden.check(inspector.frame(), title: "sharing lesson, bob · colored", file: "sharing-lesson-bob-120x40-colored.golden")
        // Removed: the zone and its share lines are gone from bob's shared database once his iPad fetched.
        while !lesson.isFinished { await inspector.press(.enter) }
        #expect(lesson.failureMessage == nil)
        try await inspector.focus("iPad")
        #expect(!inspector.state.snapshot.zones.contains { $0.entry?.scope == .shared && $0.entry?.recordCount != nil })
        #expect(shareLines(inspector).isEmpty)
    }

    /// Presenting, each new step shows its CloudKit code, and the lesson runs to its end.
    @Test func thePresenterShowsEachSharingStepsCode() async throws {
        let (inspector, lesson) = try await inspector(presenting: true)
        var shownTitles: Set<String> = []
        while !lesson.isFinished {
            await inspector.press(.enter)
            if let title = lesson.code?.title { shownTitles.insert(title) }
            _ = inspector.frame()
        }
        #expect(lesson.failureMessage == nil)
        let codes = lesson.scenario.steps.compactMap { step -> String? in
            switch step.kind {
            case .saveShare, .resolveShare, .acceptShare, .removeParticipant: step.clientCode?.title
            default: nil
            }
        }
        #expect(codes == [
            "CKShare of a whole zone, with participants", "CKFetchShareMetadataOperation", "CKAcceptSharesOperation",
            "CKShare: removing participants",
        ])
        #expect(Set(codes).isSubset(of: shownTitles), "\(shownTitles)")
        let save = try #require(lesson.scenario.steps.first { if case .saveShare = $0.kind { true } else { false } }?.clientCode)
        #expect(save.fixed.contains("share.addParticipant(bob)"))
        #expect(save.fixed.contains("bob.permission = .readWrite"))
        #expect(inspector.frame().width == Self.size.width)
    }
}
