import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// The main screens at 80×24 and 120×40, text and style, compared cell for
/// cell with the files in `Goldens/` (see ``ScreenGolden``). The demo world
/// (fixed seed, paused, writer stopped) and a small lesson make them the same
/// on every run. Regenerate after a deliberate change:
/// `SYNCSCOPE_UPDATE_GOLDENS=1 swift test --filter InspectorGoldenTests`.
@Suite("Inspector goldens")
struct InspectorGoldenTests {
    static let sizes = [Size(width: 80, height: 24), Size(width: 120, height: 40)]

    func demo(_ size: Size, theme: Theme = .colored) async throws -> InspectorController {
        let inspector = try await makeInspector(size: size)
        inspector.view = InspectorView(theme: theme)
        return inspector
    }

    func check(_ inspector: InspectorController, _ screen: String, _ size: Size, theme: String = "colored") throws {
        try ScreenGolden.check(
            inspector.frame(), title: "\(screen) · \(theme)", file: "\(screen.replacing(" ", with: "-"))-\(size.width)x\(size.height)-\(theme).golden")
    }

    @Test(arguments: sizes) func mainScreen(size: Size) async throws {
        let inspector = try await demo(size)
        try check(inspector, "main", size)
    }

    @Test func mainScreenWithoutColour() async throws {
        let size = Size(width: 80, height: 24)
        let inspector = try await demo(size, theme: .monochrome)
        try check(inspector, "main", size, theme: "monochrome")
    }

    @Test(arguments: sizes) func recordDetail(size: Size) async throws {
        let inspector = try await demo(size)
        try await inspector.selectRecord("note-2")
        await inspector.press(.character("i"))
        try check(inspector, "record detail", size)
    }

    @Test(arguments: sizes) func newRecordForm(size: Size) async throws {
        let inspector = try await demo(size)
        // A typed name, a prefilled type, and two empty fields (one with its hint).
        await inspector.press(.character("n"))
        await inspector.type("note-5")
        try check(inspector, "new record form", size)
    }

    @Test(arguments: sizes) func rewindToAToken(size: Size) async throws {
        let inspector = try await demo(size)
        await inspector.press(.tab, .tab, .character("j"))
        #expect(inspector.state.pane == .tokens)
        try check(inspector, "rewind", size)
    }

    @Test(arguments: sizes) func lessonAfterTwoSteps(size: Size) async throws {
        let scenario = try ScenarioParser.parse(yaml: tinyLessonYAML, fileName: "tiny.yaml")
        let lesson = try LessonSession(scenario: scenario)
        let inspector = await InspectorController(
            simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: size, theme: .colored, realClock: FakeRealClock())
        for _ in 0..<3 { await inspector.press(.enter) }
        try check(inspector, "lesson", size)
    }

    // The comparison itself: a golden read back equals the screen it came
    // from, and one changed cell (text or style) is found and named.
    @Test func aGoldenFindsOneChangedCell() async throws {
        let inspector = try await demo(Size(width: 80, height: 24))
        var buffer = inspector.frame()
        let golden = try ScreenGolden.parse(ScreenGolden(title: "t", buffer: buffer).fileText)
        #expect(ScreenGolden(title: "t", buffer: buffer).differences(from: golden).isEmpty)
        buffer.put(SyncInspector.Cell("X", style: buffer[x: 5, y: 3].style), x: 5, y: 3)
        #expect(ScreenGolden(title: "t", buffer: buffer).differences(from: golden).first?.hasPrefix("(5,3): golden") == true)
        var restyled = inspector.frame()
        restyled.updateStyle(in: Rect(x: 7, y: 2, width: 1, height: 1)) { $0 = Style(foreground: .red) }
        let difference = ScreenGolden(title: "t", buffer: restyled).differences(from: golden)
        #expect(difference.count == 1 && difference[0].hasSuffix("fg=red"), "\(difference)")
    }
}
