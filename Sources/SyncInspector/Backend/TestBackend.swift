/// A terminal for tests: keys come from a script, drawing goes into a
/// ``CellBuffer`` (`screen`) using the same diff as the real backend.
public final class TestBackend: TerminalBackend {
    /// One step of the script, consumed by one `readKey` call.
    public enum Step: Hashable, Sendable {
        /// A key arrives before the timeout.
        case key(KeyEvent)
        /// The terminal is resized; `readKey` returns `.resize`.
        case resize(Size)
        /// No key arrives: the timeout passes (`onWait` is told how long).
        case wait
        /// A key arrives after `milliseconds` of waiting (`onWait` is told
        /// how long); it must not be later than the timeout.
        case keyAfter(Int, KeyEvent)
    }

    public private(set) var size: Size
    /// What the terminal shows now.
    public private(set) var screen: CellBuffer
    /// Number of `draw` calls.
    public private(set) var drawCount = 0
    /// How many cells each `draw` changed.
    public private(set) var changedCellsPerDraw: [Int] = []
    /// The timeout of every `readKey` call, in order.
    public private(set) var requestedTimeouts: [Int] = []
    /// Steps not yet consumed.
    public private(set) var script: [Step]
    /// Called for `.wait` steps with the timeout that passed, for example to
    /// advance a `VirtualClock`.
    public var onWait: ((Int) -> Void)?

    private var lastDrawn: CellBuffer?

    public init(size: Size, script: [Step] = []) {
        self.size = size
        self.screen = CellBuffer(size: size)
        self.script = script
    }

    public func draw(_ buffer: CellBuffer) throws(TerminalError) {
        let changes = buffer.diff(from: lastDrawn)
        if screen.size != buffer.size {
            screen = CellBuffer(size: buffer.size)
        }
        for change in changes where !change.cell.isContinuation {
            screen.put(change.cell, x: change.x, y: change.y)
        }
        lastDrawn = buffer
        drawCount += 1
        changedCellsPerDraw.append(changes.count)
    }

    public func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        requestedTimeouts.append(timeoutMs)
        guard !script.isEmpty else {
            throw TerminalError(.scriptEnded, "The test script has no more steps.")
        }
        switch script.removeFirst() {
        case .key(let key):
            return key
        case .resize(let newSize):
            size = newSize
            return .resize
        case .wait:
            guard timeoutMs >= 0 else {
                throw TerminalError(.scriptEnded, "readKey waited for ever: no tick was scheduled.")
            }
            onWait?(timeoutMs)
            return nil
        case .keyAfter(let milliseconds, let key):
            guard timeoutMs < 0 || milliseconds <= timeoutMs else {
                throw TerminalError(
                    .scriptEnded, "A key was scripted after \(milliseconds) ms but readKey waited only \(timeoutMs) ms.")
            }
            onWait?(milliseconds)
            return key
        }
    }

    /// The next `draw` changes every cell, as after Ctrl-L on a terminal.
    public func invalidate() {
        lastDrawn = nil
    }

    /// The bytes of every ``copyToClipboard(_:)``, in order (what a terminal would have received).
    public private(set) var clipboardWrites: [[UInt8]] = []
    /// Whether the test terminal pretends to run inside tmux.
    public var insideTmux = false

    public func copyToClipboard(_ text: String) -> Clipboard.Outcome {
        clipboardWrites.append(Clipboard.sequence(for: text, insideTmux: insideTmux))
        return .sent(viaTmux: insideTmux)
    }

    /// Adds steps to the end of the script.
    public func append(_ steps: [Step]) {
        script += steps
    }
}
