import Foundation
import SyncCore

/// Records what another backend shows as an asciinema v2 cast, with real
/// timings: each `draw` becomes one output event holding the ANSI text for
/// the cells that changed (the first frame, and the first after a resize or
/// a repaint, holds the whole screen). Keys pass through unrecorded.
public final class RecordingBackend<Base: TerminalBackend>: TerminalBackend {
    public let base: Base
    public let writer: AsciicastWriter
    private let clock: any SyncClock
    private let start: Milliseconds
    private var lastDrawn: CellBuffer?
    /// Frames recorded so far.
    public private(set) var frames = 0

    public init(base: Base, writer: AsciicastWriter, clock: any SyncClock = SystemClock()) {
        self.base = base
        self.writer = writer
        self.clock = clock
        start = clock.now()
    }

    public var size: Size { base.size }

    public func draw(_ buffer: CellBuffer) throws(TerminalError) {
        try base.draw(buffer)
        let seconds = Double(clock.now() - start) / 1000
        do {
            if let previous = lastDrawn, previous.size == buffer.size {
                try writer.output(ANSIText.changes(from: previous, to: buffer), at: seconds)
            } else {
                if let previous = lastDrawn, previous.size != buffer.size {
                    try writer.resize(width: buffer.size.width, height: buffer.size.height, at: seconds)
                }
                try writer.output(ANSIText.fullFrame(buffer), at: seconds)
            }
        } catch {
            throw TerminalError(.setupFailed, "\(error)")
        }
        lastDrawn = buffer
        frames += 1
    }

    public func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        try base.readKey(timeoutMs: timeoutMs)
    }

    public func readKey(timeoutMs: Int, wakingOn wake: WakePipe) throws(TerminalError) -> KeyEvent? {
        try base.readKey(timeoutMs: timeoutMs, wakingOn: wake)
    }

    public func invalidate() {
        base.invalidate()
        lastDrawn = nil
    }

    public func copyToClipboard(_ text: String) -> Clipboard.Outcome {
        base.copyToClipboard(text)
    }
}
