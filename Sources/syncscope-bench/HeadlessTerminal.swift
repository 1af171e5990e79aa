import Foundation
import SyncCore
import SyncInspector
import SyncInspectorWorlds
import SyncServer
import SyncSimulation
import SyncWorlds
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal that keeps no screen: it diffs each frame against the last (as
/// the real backend does before calling curses), sleeps in `readKey` as long
/// as it is asked to, and presses `q` when its time is up.
final class HeadlessTerminal: TerminalBackend {
    let size: Size
    private(set) var draws = 0
    private var previous: CellBuffer?
    private let deadline: ContinuousClock.Instant

    init(size: Size, seconds: Double) {
        self.size = size
        deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, seconds) * 1e9))
    }

    func draw(_ buffer: CellBuffer) throws(TerminalError) {
        _ = buffer.diff(from: previous)
        previous = buffer
        draws += 1
    }

    func invalidate() { previous = nil }

    func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        let now = ContinuousClock.now
        guard now < deadline else { return .character("q") }
        let left = UInt64(deadline.seconds(since: now) * 1e6)
        let wait = timeoutMs < 0 ? left : min(left, UInt64(timeoutMs) * 1_000)
        usleep(useconds_t(min(wait, UInt64(UInt32.max))))
        return nil
    }
}
