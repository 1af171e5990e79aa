import SyncCore
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// How often the loop draws while the world is busy: at most once a frame
/// interval (``InspectorController/frameInterval``) for what the world does,
/// at once for a key. Real time is a fake clock that moves only while the
/// loop waits, so each frame's time is exact.
@Suite("Frame pacing")
struct FramePacingTests {
    let size = Size(width: 80, height: 24)

    /// A scripted terminal that notes the (fake) time of every frame and key.
    final class TimedBackend: TerminalBackend {
        let inner: TestBackend
        let clock: FakeRealClock
        var drawTimes: [Milliseconds] = []
        var keyTimes: [Milliseconds] = []

        init(size: Size, script: [TestBackend.Step], clock: FakeRealClock) {
            inner = TestBackend(size: size, script: script)
            self.clock = clock
            inner.onWait = { clock.advance(by: Milliseconds($0)) }
        }

        var size: Size { inner.size }
        func draw(_ buffer: CellBuffer) throws(TerminalError) {
            try inner.draw(buffer)
            drawTimes.append(clock.now())
        }
        func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
            let key = try inner.readKey(timeoutMs: timeoutMs)
            if key != nil { keyTimes.append(clock.now()) }
            return key
        }
        func invalidate() { inner.invalidate() }
    }

    /// The demo world with its writer changing a note every millisecond (1,000 changes a second), running at ×1.
    func busyInspector(clock: FakeRealClock) async throws -> InspectorController {
        try await makeInspector(paused: false, writer: true, writerInterval: 1, speed: 1, realClock: clock)
    }

    @Test func aBusyWorldIsDrawnOncePerFrameIntervalAndMovesOnMeanwhile() async throws {
        let clock = FakeRealClock()
        let inspector = try await busyInspector(clock: clock)
        let interval = inspector.frameInterval
        #expect(interval == InspectorController.defaultFrameInterval)
        #expect(1000 / interval <= 15, "world-driven frames stay at or under 15 a second")
        let simulation = inspector.simulation
        let actionsBefore = simulation.writer?.actions ?? 0
        let start = clock.now()
        let backend = TimedBackend(size: size, script: Array(repeating: .wait, count: 12) + [.key(.character("q"))], clock: clock)
        try await inspector.run(backend: backend)
        let elapsed = clock.now() - start

        // Every wait asked for is the time to the next frame: never zero (no spinning), never more than a frame.
        for timeout in backend.inner.requestedTimeouts.dropLast() {
            #expect(timeout > 0 && timeout <= Int(interval), "\(backend.inner.requestedTimeouts)")
        }
        // Frames come a frame interval apart, no closer, and keep coming while the world is busy.
        let gaps = zip(backend.drawTimes.dropFirst(), backend.drawTimes).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= interval }, "\(backend.drawTimes)")
        #expect(backend.drawTimes.count <= Int(elapsed / interval) + 1, "\(backend.drawTimes.count) frames in \(elapsed) ms")
        #expect(backend.drawTimes.count >= Int(elapsed / interval) - 1, "\(backend.drawTimes.count) frames in \(elapsed) ms")
        // The world kept its pace between frames: a change a millisecond.
        let actions = (simulation.writer?.actions ?? 0) - actionsBefore
        #expect(elapsed >= 12 * interval / 2)
        #expect(actions >= Int(elapsed) * 9 / 10, "\(actions) changes in \(elapsed) ms")
        #expect(backend.inner.screen.lines()[23].hasPrefix(" ▶ "), "the clock runs")
    }

    @Test func aKeyIsDrawnAtOnceEvenRightAfterAFrame() async throws {
        let clock = FakeRealClock()
        let inspector = try await busyInspector(clock: clock)
        let interval = inspector.frameInterval
        let script: [TestBackend.Step] = Array(repeating: .wait, count: 5) + [.keyAfter(7, .character("j"))]
            + Array(repeating: .wait, count: 3) + [.key(.character("q"))]
        let backend = TimedBackend(size: size, script: script, clock: clock)
        try await inspector.run(backend: backend)
        let keyTime = try #require(backend.keyTimes.first)
        let index = try #require(backend.drawTimes.firstIndex(of: keyTime), "a frame at the key's time: \(backend.drawTimes), key at \(keyTime)")
        #expect(index > 0)
        #expect(keyTime - backend.drawTimes[index - 1] == 7, "the key came 7 ms after a frame and was drawn then, not a frame later")
        #expect(7 < interval)
        // After it, the world's frames are paced again from the key's frame.
        if index + 1 < backend.drawTimes.count { #expect(backend.drawTimes[index + 1] - keyTime >= interval) }
    }
}
