/// A terminal the event loop can draw on and read keys from.
///
/// ``NcursesBackend`` is the real one; ``TestBackend`` runs a script of keys
/// and keeps what was drawn, for tests.
public protocol TerminalBackend: AnyObject {
    /// The current size in cells.
    var size: Size { get }
    /// Shows `buffer`, updating only what changed since the last draw.
    func draw(_ buffer: CellBuffer) throws(TerminalError)
    /// Waits up to `timeoutMs` milliseconds for a key (-1 waits for ever).
    /// Returns nil when the time ran out.
    func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent?
    /// Waits as ``readKey(timeoutMs:)`` does, and also wakes (returning
    /// nil) when `wake` is written to: the loop blocks on standard input and
    /// the pipe at once. A backend without file descriptors (a test script)
    /// waits as ``readKey(timeoutMs:)`` does.
    func readKey(timeoutMs: Int, wakingOn wake: WakePipe) throws(TerminalError) -> KeyEvent?
    /// Forgets what the terminal shows, so the next `draw` repaints every
    /// cell (Ctrl-L, or after another program wrote over the screen).
    func invalidate()
    /// Puts `text` on the terminal's clipboard (OSC 52; see ``Clipboard``).
    /// Backends without a terminal get a default that says they cannot.
    func copyToClipboard(_ text: String) -> Clipboard.Outcome
}

extension TerminalBackend {
    public func readKey(timeoutMs: Int, wakingOn wake: WakePipe) throws(TerminalError) -> KeyEvent? {
        try readKey(timeoutMs: timeoutMs)
    }
}
