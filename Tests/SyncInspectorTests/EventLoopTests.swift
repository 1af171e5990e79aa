import SyncCore
import Testing
@testable import SyncInspector

/// A counter: "+" adds one, "q" quits, other keys change nothing; ticks are recorded.
struct CounterApp: TerminalApp {
    struct State: Equatable {
        var count = 0
        var ticks: [Milliseconds] = []
        var resizedTo: Size?
    }

    final class Calls {
        var views: [Size] = []
    }

    let calls = Calls()

    func update(_ state: inout State, _ event: AppEvent<Milliseconds>) -> UpdateResult {
        switch event {
        case .key(.character("+")):
            state.count += 1
            return .changed
        case .key(.character("q")):
            return .quit
        case .key:
            return .unchanged
        case .tick(let time):
            state.ticks.append(time)
            return .changed
        case .resized(let size):
            state.resizedTo = size
            return .changed
        }
    }

    func view(_ state: State, size: Size) -> CellBuffer {
        calls.views.append(size)
        var buffer = CellBuffer(size: size)
        buffer.write("count \(state.count) ticks \(state.ticks.count)", x: 0, y: 0)
        return buffer
    }
}

/// The same app without ticks.
struct KeysOnlyApp: TerminalApp {
    let inner = CounterApp()
    func update(_ state: inout CounterApp.State, _ event: AppEvent<Never>) -> UpdateResult {
        switch event {
        case .key(let key): inner.update(&state, .key(key))
        case .resized(let size): inner.update(&state, .resized(size))
        }
    }
    func view(_ state: CounterApp.State, size: Size) -> CellBuffer { inner.view(state, size: size) }
}

@Suite("Event loop")
struct EventLoopTests {
    let size = Size(width: 80, height: 24)

    @Test func redrawsOnlyWhenTheStateChanges() throws {
        let app = KeysOnlyApp()
        let backend = TestBackend(size: size, script: [
            .key(.character("+")), .key(.character("x")), .key(.down), .key(.character("+")), .key(.character("q")),
        ])
        let final = try EventLoop().run(app, state: CounterApp.State(), backend: backend)
        #expect(final.count == 2)
        #expect(backend.drawCount == 3)  // first frame, then one per "+"
        #expect(app.inner.calls.views.count == 3)
        #expect(backend.screen.lines()[0].hasPrefix("count 2 ticks 0"))
        // Only the changed digit is sent after the first full frame.
        #expect(backend.changedCellsPerDraw == [80 * 24, 1, 1])
    }

    @Test func withoutTicksItBlocksUntilAKeyArrives() throws {
        let backend = TestBackend(size: size, script: [.key(.character("+")), .key(.character("q"))])
        _ = try EventLoop().run(KeysOnlyApp(), state: CounterApp.State(), backend: backend)
        #expect(backend.requestedTimeouts == [-1, -1])
    }

    @Test func waitingWithNothingScheduledWouldBeForEver() {
        let backend = TestBackend(size: size, script: [.wait])
        #expect(throws: TerminalError.self) {
            _ = try EventLoop().run(KeysOnlyApp(), state: CounterApp.State(), backend: backend)
        }
    }

    @Test func waitsExactlyUntilTheNextTick() throws {
        let clock = VirtualClock()
        let start = clock.now()
        var ticks = IntervalTicks(clock: clock, intervalMs: 500)
        let backend = TestBackend(size: size, script: [
            .wait,  // 500 ms pass: first tick
            .keyAfter(200, .character("+")),  // a key 200 ms into the next wait
            .wait,  // the remaining 300 ms: second tick
            .key(.character("q")),
        ])
        backend.onWait = { clock.advance(by: Milliseconds($0)) }
        let app = CounterApp()
        let final = try EventLoop().run(app, state: CounterApp.State(), backend: backend, ticks: &ticks)
        #expect(backend.requestedTimeouts == [500, 500, 300, 500])
        #expect(final.ticks == [start + 500, start + 1000])
        #expect(final.count == 1)
        #expect(backend.drawCount == 4)  // first frame, tick, key, tick
    }

    @Test func pausedTicksLetTheLoopBlock() throws {
        let clock = VirtualClock()
        var ticks = IntervalTicks(clock: clock, intervalMs: 100, isPaused: true)
        let backend = TestBackend(size: size, script: [.key(.character("q"))])
        _ = try EventLoop().run(CounterApp(), state: CounterApp.State(), backend: backend, ticks: &ticks)
        #expect(backend.requestedTimeouts == [-1])
    }

    @Test func aLateTickIsDeliveredOnceNotInABurst() {
        let clock = VirtualClock()
        var ticks = IntervalTicks(clock: clock, intervalMs: 100)
        clock.advance(by: 1_000)
        #expect(ticks.millisecondsUntilNextTick() == 0)
        #expect(ticks.takeDueTicks().count == 1)
        #expect(ticks.millisecondsUntilNextTick() == 100)
        #expect(ticks.takeDueTicks().isEmpty)
    }

    @Test func resizeRedrawsAtTheNewSize() throws {
        let app = KeysOnlyApp()
        let bigger = Size(width: 100, height: 30)
        let backend = TestBackend(size: size, script: [.resize(bigger), .key(.character("q"))])
        let final = try EventLoop().run(app, state: CounterApp.State(), backend: backend)
        #expect(final.resizedTo == bigger)
        #expect(app.inner.calls.views == [size, bigger])
        #expect(backend.screen.size == bigger)
    }

    @Test func tooSmallTerminalShowsTheMessageInsteadOfTheView() throws {
        let app = KeysOnlyApp()
        let backend = TestBackend(size: Size(width: 79, height: 23), script: [
            .key(.character("+")), .resize(Size(width: 80, height: 24)), .key(.character("q")),
        ])
        _ = try EventLoop().run(app, state: CounterApp.State(), backend: backend)
        // Two frames while too small (start, "+"), then the real view once it fits.
        #expect(app.inner.calls.views == [Size(width: 80, height: 24)])
        #expect(backend.screen.lines()[0].hasPrefix("count 1"))
    }

    @Test func tooSmallMessageIsWhatTheTerminalShows() throws {
        let backend = TestBackend(size: Size(width: 40, height: 10), script: [.key(.character("q"))])
        _ = try EventLoop().run(KeysOnlyApp(), state: CounterApp.State(), backend: backend)
        #expect(backend.screen == TooSmallScreen.render(size: Size(width: 40, height: 10)))
    }

    @Test func viewOfTheWrongSizeIsFittedToTheScreen() {
        struct FixedApp: TerminalApp {
            func update(_ state: inout Int, _ event: AppEvent<Never>) -> UpdateResult { .quit }
            func view(_ state: Int, size: Size) -> CellBuffer {
                var buffer = CellBuffer(width: 200, height: 2)
                buffer.write("wide", x: 0, y: 0)
                return buffer
            }
        }
        let frame = EventLoop(minimumSize: nil).frame(FixedApp(), 0, size: Size(width: 10, height: 3))
        #expect(frame.size == Size(width: 10, height: 3))
        #expect(frame.lines()[0] == "wide      ")
    }
}
