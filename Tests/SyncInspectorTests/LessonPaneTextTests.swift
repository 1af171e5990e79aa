import SyncCore
import Testing
@testable import SyncInspector

/// The lesson pane's narration (issue 27, points 1 and 2): it wraps to the
/// pane and reflows, scrolls with j/k while the pane has focus, keeps no
/// hard line breaks of the file, and zooms with Z.
@Suite struct LessonPaneTextTests {
    /// Lesson 06's long step, as its file writes it (`say: |`, hard line breaks).
    static let narrative = """
        The fix: fetch the zone again with no token. The answer has every record
        that exists, but no deletions, because a fetch from nil never reports
        any. To reconcile, the Mac removes each cached record the full fetch did
        not return. That is how note-2 goes. It is the only way to learn of a
        deletion the server no longer remembers: compare what you hold with what
        the full fetch did return, and drop the rest.
        """

    static func state(size: Size) -> InspectorState {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1), screenSize: size)
        state.snapshot.lesson = LessonStatus(
            title: "An expired token", stepsRun: 22, stepCount: 30, narrative: narrative,
            lastStep: ["Mac <- changes/zone Notes, batch 1: 2 records", "Mac removed 1 record no longer on the server from Notes"],
            nextStep: "expect lastFetch", failure: nil, outline: Array(repeating: "x", count: 30))
        return state
    }

    static func pane(_ state: InspectorState) -> [String] {
        let frame = InspectorView().render(state, size: state.screenSize)
        let rect = state.layout.lesson!
        return (rect.y..<rect.maxY).map { y in (rect.x..<rect.maxX).map { frame[x: $0, y: y].text }.joined() }
    }

    static func words(_ rows: [String]) -> String {
        rows.joined(separator: " ").split(whereSeparator: { $0.isWhitespace || "│║".contains($0) }).joined(separator: " ")
    }

    @Test func theNarrationKeepsNoHardLineBreaksOfTheFile() {
        let lines = LessonText.lines(Self.state(size: Size(width: 200, height: 60)).snapshot.lesson!, width: 190, presenting: false, answerShown: false)
        // On a wide pane the paragraph is one line: no ragged "…has every / record".
        #expect(lines[0].text.hasPrefix("The fix: fetch the zone again with no token. The answer has every record that exists, but no"))
        #expect(lines.filter { $0.kind == .narration }.count == 3)
    }

    @Test func atEightyByTwentyFourTheNarrationScrollsToItsEnd() {
        var state = Self.state(size: Size(width: 80, height: 24))
        var rows = Self.pane(state)
        #expect(rows.last?.contains("↓ j:") == true, "\(rows.joined(separator: "\n"))")
        #expect(!Self.words(rows).contains("drop the rest."))
        var seen = Self.words(rows)
        for _ in 0..<20 {
            _ = InspectorKeys.handle(.character("j"), state: &state)
            rows = Self.pane(state)
            seen += " " + Self.words(rows)
        }
        // j scrolled, and did not move the focus away.
        #expect(state.lessonMode.narrativeFocused)
        #expect(state.lessonMode.narrativeScroll > 0)
        #expect(seen.contains("and drop the rest."), "\(rows.joined(separator: "\n"))")
        #expect(seen.contains("Mac removed 1 record no longer on the server from Notes"))
        #expect(rows.last?.contains("↑ k") == true)
        #expect(rows.last?.contains("↓ j") == false)
        // Never past the end: one more j changes nothing.
        let end = state.lessonMode.narrativeScroll
        _ = InspectorKeys.handle(.character("j"), state: &state)
        #expect(state.lessonMode.narrativeScroll == end)
        _ = InspectorKeys.handle(.character("g"), state: &state)
        #expect(state.lessonMode.narrativeScroll == 0)
    }

    /// A resize reflows: at 200×60 the whole text fits with no scroll mark.
    @Test func aResizeReflowsTheNarration() {
        var state = Self.state(size: Size(width: 80, height: 24))
        _ = InspectorKeys.handle(.character("G"), state: &state)
        #expect(state.lessonMode.narrativeScroll > 0)
        _ = InspectorReducer.reduce(&state, .resized(Size(width: 200, height: 60)))
        let rows = Self.pane(state)
        #expect(Self.words(rows).contains("The fix: fetch the zone again with no token."), "\(rows.joined(separator: "\n"))")
        #expect(Self.words(rows).contains("and drop the rest."))
        #expect(!rows.joined().contains("↓ j"))
        #expect(!rows.joined().contains("↑ k"))
    }

    /// Z on the lesson pane zooms the lesson pane, not the zones pane.
    @Test func zOnTheLessonPaneZoomsIt() {
        var state = Self.state(size: Size(width: 80, height: 24))
        _ = InspectorKeys.handle(.character("Z"), state: &state)
        #expect(!state.zoomed)
        #expect(state.lessonMode.narrativeZoomed)
        let layout = state.layout
        #expect(layout.lesson == Rect(x: 0, y: 1, width: 80, height: 20))
        #expect(layout.zones.isEmpty && layout.records.isEmpty && layout.events == nil)
        let rows = Self.pane(state)
        #expect(Self.words(rows).contains("and drop the rest."), "\(rows.joined(separator: "\n"))")
        _ = InspectorKeys.handle(.escape, state: &state)
        #expect(!state.lessonMode.narrativeZoomed)
    }
}
