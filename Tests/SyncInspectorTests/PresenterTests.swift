import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// A lesson made for a class: a question for the room, a presenter's note,
/// and code written in the lesson, wrong beside fixed.
let classroomLessonYAML = """
    name: classroom
    title: "A lesson for the room"
    seed: 5
    users: [alice]
    devices:
      - {name: iPhone, user: alice}
      - {name: Mac, user: alice}
    steps:
      - say: |
          The iPhone saves a note in Notes. The Mac has never fetched:
          it has no token for the zone.
      - createZone: {device: iPhone, zone: Notes}
      - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: Groceries}}
      - send: iPhone
      - ask:
          question: What does the Mac's first fetch bring?
          choices: [Nothing, Every record, An error]
          answer: 2
          why: A fetch from no token brings every record there is.
        note: Let them vote first.
      - fetch: {device: Mac, zone: Notes, token: nil}
        code:
          title: "A token kept apart from the records"
          wrong: |
            tokens[zoneID] = token     // saved first, alone
            await cache.write(records)  // a crash here loses them
          fixed: |
            try cache.transaction {     // both, or neither
                try $0.write(records)
                try $0.save(token, for: zoneID)
            }
      - expect: {cache: {device: Mac, zone: Notes, count: 1}}
    """

/// The presenter layout (issue 27): the narration large, wrapped and
/// scrolled; the panes the step touched enlarged; the step's code beside it.
@Suite("Presenter layout")
struct PresenterTests {
    static let sizes = [Size(width: 80, height: 24), Size(width: 120, height: 40), Size(width: 60, height: 20)]

    func lesson(_ size: Size, presenting: Bool = true) async throws -> InspectorController {
        let scenario = try ScenarioParser.parse(yaml: classroomLessonYAML, fileName: "classroom.yaml")
        let lesson = try LessonSession(scenario: scenario)
        let inspector = await InspectorController(
            simulation: lesson.simulation, lesson: lesson, paused: true, screenSize: size, theme: .colored, realClock: FakeRealClock())
        if presenting { inspector.startPresenting() }
        return inspector
    }

    static func text(_ inspector: InspectorController) -> String { inspector.lines.joined(separator: "\n") }

    /// The lesson pane's words, in reading order (wrapped lines joined).
    static func lessonWords(_ inspector: InspectorController) throws -> String {
        let rect = try #require(inspector.state.layout.lesson)
        let frame = inspector.frame()
        let rows = (rect.y..<rect.maxY).map { y in (rect.x..<rect.maxX).map { frame[x: $0, y: y].text }.joined() }
        return rows.joined(separator: " ").split(whereSeparator: { $0.isWhitespace || "║│".contains($0) }).joined(separator: " ")
    }

    /// The fetch step: the panes it touched enlarged, its code (wrong and fixed) beside the narration.
    @Test(arguments: sizes) func presenterLayoutWithACodePane(size: Size) async throws {
        let inspector = try await lesson(size)
        for _ in 0..<6 { await inspector.press(.enter) }
        #expect(inspector.state.snapshot.lesson?.code?.wrong != nil)
        let layout = inspector.state.layout
        let code = try #require(layout.code)
        let lessonPane = try #require(layout.lesson)
        #expect(!code.isEmpty && !lessonPane.isEmpty)
        // The fetch touched zones, records and tokens: they are drawn; the push pane is at most a title bar.
        #expect(!layout.records.isEmpty)
        #expect(layout.notifications.height <= 2)
        #expect(Self.text(inspector).contains("✗ The mistake"), "\(Self.text(inspector))")
        try ScreenGolden.check(
            inspector.frame(), title: "presenter with code · colored", file: "presenter-\(size.width)x\(size.height)-colored.golden")
    }

    @Test func f5AndCtrlPToggleThePresenterLayout() async throws {
        let inspector = try await lesson(Size(width: 80, height: 24), presenting: false)
        #expect(!inspector.state.lessonMode.presenting)
        await inspector.press(.function(5))
        #expect(inspector.state.lessonMode.presenting)
        #expect(inspector.state.message?.text.hasPrefix("Presenter layout") == true)
        await inspector.press(.control("p"))
        #expect(!inspector.state.lessonMode.presenting)
        // Below 80×24 only the presenter layout draws.
        let small = try await lesson(Size(width: 60, height: 20), presenting: false)
        #expect(Self.text(small).contains("Enlarge the window to at least 80×24"))
        await small.press(.function(5))
        #expect(!Self.text(small).contains("Enlarge the window"))
        #expect(Self.text(small).contains("Lesson · step 0 of"))
    }

    /// The question shows before the step that reveals it; A shows its
    /// answer; the note is for the presenter only.
    @Test func aQuestionForTheRoomAndAPresentersNote() async throws {
        let inspector = try await lesson(Size(width: 120, height: 40), presenting: false)
        for _ in 0..<5 { await inspector.press(.enter) }
        var screen = Self.text(inspector)
        #expect(screen.contains("? What does the Mac's first fetch bring?"), "\(screen)")
        #expect(screen.contains("B) Every record"))
        #expect(!screen.contains("Answer:"))
        #expect(!screen.contains("Let them vote first."), "a note is not for the room")
        // The Mac has not fetched yet: the class predicts before the world shows.
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).isEmpty == true)
        await inspector.press(.character("A"))
        screen = Self.text(inspector)
        let words = try Self.lessonWords(inspector)
        #expect(words.contains("Answer: B) Every record. A fetch from no token brings every record there is."), "\(screen)")
        // Presenting, the note shows.
        await inspector.press(.function(5))
        let presented = try Self.lessonWords(inspector)
        #expect(presented.contains("Note (only you see this): Let them vote first."), "\(Self.text(inspector))")
        // The next step reveals it, and the question goes.
        await inspector.press(.enter)
        #expect(inspector.simulation.device(named: "Mac")?.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).count == 1)
        #expect(!Self.text(inspector).contains("? What does the Mac's first fetch bring?"))
    }

    /// C shows the step's code beside the narration outside the presenter layout.
    @Test func cShowsTheCodeBesideTheLessonPane() async throws {
        let inspector = try await lesson(Size(width: 120, height: 40), presenting: false)
        for _ in 0..<4 { await inspector.press(.enter) }  // the send
        #expect(inspector.state.layout.code == nil)
        await inspector.press(.character("C"))
        let code = try #require(inspector.state.layout.code)
        #expect(inspector.state.layout.events == nil)
        let rows = inspector.lines[code.y..<code.maxY].joined(separator: "\n")
        #expect(rows.contains("CKModifyRecordsOperation"), "\(rows)")
        #expect(rows.contains(".ifServerRecordUnchanged"), "\(rows)")
    }

    /// The code the lesson writes on a narration stays on screen through the
    /// step it introduces and its checks; a step without written code shows
    /// the code made from it.
    @Test func theLessonsWrittenCodeStaysThroughTheStepItIntroduces() async throws {
        let scenario = try ScenarioLocator.load("sync-engine-events")
        let lesson = try LessonSession(scenario: scenario)
        for _ in 0..<4 { await lesson.next() }  // say, createZone, burst, expect
        #expect(lesson.code?.title == "handleEvent: .sentRecordZoneChanges")
        await lesson.next()  // the say that writes the wrong and fixed code
        #expect(lesson.code?.title == "handleEvent: persisting the state on its own")
        await lesson.next()  // the ask
        await lesson.next()  // the fetch that crashes
        let code = try #require(lesson.code)
        #expect(code.title == "handleEvent: persisting the state on its own")
        #expect(code.wrong?.contains("defaults.set") == true)
        await lesson.next()  // its check
        #expect(lesson.code?.title == "handleEvent: persisting the state on its own")
        // The iPad's fetch comes after a narration that writes no code: the code made from it.
        while lesson.lastStepDevice != "iPad" && !lesson.isFinished { await lesson.next() }
        #expect(lesson.code?.title == "CKFetchRecordZoneChangesOperation")
        #expect(lesson.code?.fixed.contains("config.resultsLimit = 2") == true)
    }
}
