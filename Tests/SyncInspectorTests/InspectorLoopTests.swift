import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// The run loop on a scripted terminal: real time is a fake clock that moves
/// only while the loop waits, so every wait it asks for is visible.
@Suite("Inspector loop")
struct InspectorLoopTests {
    let size = Size(width: 80, height: 24)

    func run(_ inspector: InspectorController, _ script: [TestBackend.Step], clock: FakeRealClock) async throws -> TestBackend {
        let backend = TestBackend(size: size, script: script)
        backend.onWait = { clock.advance(by: Milliseconds($0)) }
        try await inspector.run(backend: backend)
        return backend
    }

    @Test func pausedItBlocksOnInputForEverAndRedrawsOnlyWhenSomethingChanged() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeInspector(realClock: clock)
        let backend = try await run(inspector, [.key(.character("0")), .key(.character("Q")), .key(.character("j")), .key(.character("q"))], clock: clock)
        #expect(backend.requestedTimeouts == [-1, -1, -1, -1], "no timer while paused: the loop sleeps in readKey")
        #expect(backend.drawCount == 2, "the first frame, then one after j moved the selection")
        #expect(backend.screen.lines().joined().contains("Zones seen by iPhone"))
    }

    @Test func runningItWaitsExactlyUntilTheNextEventAndMovesTheClockAtTheChosenSpeed() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeInspector(paused: false, writer: true, speed: 2, realClock: clock)
        let simulation = inspector.simulation
        let start = simulation.clock.now()
        let writerDue = try #require(simulation.writer?.nextActionTime)
        let backend = try await run(inspector, [.wait, .wait, .wait, .wait, .wait, .key(.character("q"))], clock: clock)
        let waited = backend.requestedTimeouts.dropLast().reduce(0) { $0 + Milliseconds($1) }
        #expect(simulation.clock.now() - start == waited * 2, "virtual time = real time × speed")
        for timeout in backend.requestedTimeouts.dropLast() {
            #expect(timeout >= 0 && timeout <= 500, "the clock on screen changes every 500 ms at ×2: \(backend.requestedTimeouts)")
        }
        // The first wait ends at the writer's first change or the next second on the clock, whichever is first.
        let firstSecond = (start / 1000 + 1) * 1000
        let expected = (min(writerDue, firstSecond) - start + 1) / 2
        #expect(abs(Milliseconds(backend.requestedTimeouts[0]) - expected) <= 1, "\(backend.requestedTimeouts) vs \(expected)")
    }

    @Test func theWritersChangesReachTheScreenWithoutAKey() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeInspector(seed: 2, paused: false, writer: true, writerInterval: 1_000, speed: 10, realClock: clock)
        let simulation = inspector.simulation
        let backend = try await run(inspector, Array(repeating: .wait, count: 40) + [.key(.character("q"))], clock: clock)
        #expect((simulation.writer?.actions ?? 0) >= 3)
        #expect(backend.drawCount > 3)
        let status = backend.screen.lines()[23]
        #expect(status.hasPrefix(" ▶ 00:00:"), "\(status)")
        #expect(status.contains("×10"))
    }

    /// Keeps a copy of the screen after every draw.
    final class RecordingBackend: TerminalBackend {
        let inner: TestBackend
        var frames: [CellBuffer] = []
        init(_ inner: TestBackend) { self.inner = inner }
        var size: Size { inner.size }
        func draw(_ buffer: CellBuffer) throws(TerminalError) {
            try inner.draw(buffer)
            frames.append(inner.screen)
        }
        func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? { try inner.readKey(timeoutMs: timeoutMs) }
        func invalidate() { inner.invalidate() }
    }

    @Test func aResizeLaysTheScreenOutAgainAtOnce() async throws {
        let inspector = try await makeInspector()
        let backend = RecordingBackend(TestBackend(
            size: size, script: [.resize(Size(width: 60, height: 20)), .resize(Size(width: 120, height: 40)), .key(.character("q"))]))
        try await inspector.run(backend: backend)
        #expect(backend.frames.map(\.size) == [size, Size(width: 60, height: 20), Size(width: 120, height: 40)])
        #expect(backend.frames[1].lines().joined(separator: " ").contains("Enlarge the window to at least 80×24 (now 60×20)"))
        #expect(backend.frames[2].lines().joined().contains("What happened"), "the tall screen has the events pane")
        #expect(inspector.state.screenSize == Size(width: 120, height: 40))
    }

    @Test func aTooSmallTerminalShowsTheMessageAndStillQuits() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeInspector(realClock: clock)
        let backend = TestBackend(size: Size(width: 70, height: 20), script: [.key(.character("q"))])
        try await inspector.run(backend: backend)
        #expect(backend.screen.lines().joined(separator: "\n").contains("Enlarge the window to at least 80×24 (now 70×20)"))
    }

    /// Ctrl-L reaches the backend through the protocol (no cast to one
    /// backend type): the frame after it is drawn whole, cell for cell.
    @Test func ctrlLRepaintsEveryCell() async throws {
        let inspector = try await makeInspector()
        let backend = TestBackend(size: size, script: [.key(.control("l")), .key(.character("q"))])
        try await inspector.run(backend: backend)
        let cells = size.width * size.height
        #expect(backend.changedCellsPerDraw.first == cells)
        #expect(backend.changedCellsPerDraw.count >= 2)
        #expect(backend.changedCellsPerDraw[1] == cells, "\(backend.changedCellsPerDraw)")
    }

    @Test func spacePausesAndTheLoopStopsAskingForTicks() async throws {
        let clock = FakeRealClock()
        let inspector = try await makeInspector(paused: false, writer: true, realClock: clock)
        let backend = try await run(inspector, [.wait, .key(.character(" ")), .key(.character("j")), .key(.character("q"))], clock: clock)
        #expect(backend.requestedTimeouts[0] >= 0)
        #expect(Array(backend.requestedTimeouts.suffix(2)) == [-1, -1])
        #expect(backend.screen.lines()[23].hasPrefix(" ⏸ PAUSED"))
    }
}
