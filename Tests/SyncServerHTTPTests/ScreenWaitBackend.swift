import Foundation
import SyncInspector
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal for an inspector on a live server: it draws into a
/// ``CellBuffer`` as ``TestBackend`` does, and blocks on the loop's wake pipe
/// (as the real terminal does) until the screen shows what the next step
/// waits for; then it keeps the screen (a whole frame, for a golden) and
/// hands the step's key to the loop. No sleeps: each step has a deadline.
final class ScreenWaitBackend: TerminalBackend {
    struct Step: Sendable {
        /// What the step waits for, in words (for the failure).
        var waitsFor: String
        var condition: @Sendable ([String]) -> Bool
        /// The key to press once the screen shows it (`nil`: none).
        var key: KeyEvent?
        /// Keeps the screen under this name once it shows it.
        var capture: String?
        /// Started (not awaited) once the screen shows it: a client's calls while the inspector watches.
        var action: (@Sendable () async throws -> Void)?

        /// Waits until the screen contains `text`.
        static func until(_ text: String, capture: String? = nil, then key: KeyEvent? = nil) -> Step {
            Step(waitsFor: "'\(text)'", condition: { $0.joined(separator: "\n").contains(text) }, key: key, capture: capture)
        }
    }

    private(set) var size: Size
    private(set) var screen: CellBuffer
    private var lastDrawn: CellBuffer?
    private var steps: [Step]
    /// Screens kept by the steps, by name.
    private(set) var captures: [String: [String]] = [:]
    /// How long each step may wait for its screen.
    let stepLimit: Duration
    private var deadline: ContinuousClock.Instant

    init(size: Size, steps: [Step], stepLimit: Duration = .seconds(60)) {
        self.size = size
        screen = CellBuffer(size: size)
        self.steps = steps
        self.stepLimit = stepLimit
        deadline = .now + stepLimit
    }

    func draw(_ buffer: CellBuffer) throws(TerminalError) {
        for change in buffer.diff(from: lastDrawn) where !change.cell.isContinuation {
            screen.put(change.cell, x: change.x, y: change.y)
        }
        lastDrawn = buffer
    }

    func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        throw TerminalError(.scriptEnded, "ScreenWaitBackend waits on the loop's wake pipe only.")
    }

    func readKey(timeoutMs: Int, wakingOn wake: WakePipe) throws(TerminalError) -> KeyEvent? {
        guard let step = steps.first else { return .character("q") }
        let lines = screen.lines()
        if step.condition(lines) {
            steps.removeFirst()
            deadline = .now + stepLimit
            if let name = step.capture { captures[name] = lines }
            if let action = step.action {
                Task {
                    do { try await action() } catch { Issue.record("the step's calls failed: \(error)") }
                }
            }
            return step.key
        }
        let left = deadline - .now
        guard left > .zero else {
            throw TerminalError(.scriptEnded, "The screen never showed \(step.waitsFor) within \(stepLimit). It shows:\n\(lines.joined(separator: "\n"))")
        }
        let leftMs = Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
        let wait = timeoutMs < 0 ? leftMs : min(timeoutMs, leftMs)
        var fd = pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
        if poll(&fd, 1, Int32(clamping: wait)) > 0 { wake.drain() }
        return nil
    }

    func invalidate() { lastDrawn = nil }

    func copyToClipboard(_ text: String) -> Clipboard.Outcome { .unavailable("a test terminal has no clipboard.") }
}
