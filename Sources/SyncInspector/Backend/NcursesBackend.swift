import CNcurses
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real terminal, through ncursesw.
///
/// - Curses is not thread-safe: every call must happen on the thread that
///   created the backend (checked; a call from another thread is a
///   programming error and stops the program).
/// - Only one backend may be active at a time.
/// - `draw` copies only the cells that differ from the previous frame into
///   the curses window, then does one `wnoutrefresh` + `doupdate`.
/// - `restore()` gives the terminal back (idempotent, also run by `deinit`).
///   SIGINT, SIGTERM and SIGHUP restore the terminal before the process
///   ends, and so does `exit()`; so do the signals of a crash (SIGABRT,
///   SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE), which then go on to the
///   handler that was there before (the runtime's backtracer, or the default).
public final class NcursesBackend: TerminalBackend {
    public struct Options: Sendable {
        /// How long a lone Esc waits for the rest of an escape sequence.
        public var escapeDelayMs: Int
        /// When true, the terminal is in raw mode and Ctrl-C arrives as the
        /// key `.control("c")` instead of SIGINT (Ctrl-Z and Ctrl-\ also stop
        /// generating signals). When false (default), cbreak mode: Ctrl-C
        /// restores the terminal and ends the program.
        public var deliverCtrlCAsKey: Bool

        public init(escapeDelayMs: Int = 25, deliverCtrlCAsKey: Bool = false) {
            self.escapeDelayMs = escapeDelayMs
            self.deliverCtrlCAsKey = deliverCtrlCAsKey
        }
    }

    public private(set) var size: Size
    /// Whether the terminal can show colours.
    public let hasColors: Bool

    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private let owner: pthread_t
    private var previous: CellBuffer?
    private var isRestored = false
    private var colorPairs: [UInt16: Int32] = [:]
    private var nextColorPair: Int32 = 1
    private let defaultColorsWork: Bool

    public init(options: Options = Options()) throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(
                .notATerminal,
                "The inspector needs an interactive terminal: standard input and output must both be a terminal.")
        }
        guard TerminalGuard.claim() else {
            throw TerminalError(.alreadyActive, "Another terminal interface is already running in this program.")
        }
        scn_setlocale_from_environment()
        TerminalGuard.saveShellMode()
        // Our handlers go in before curses starts, so curses does not install its own.
        TerminalGuard.installSignalHandlers()
        guard let screen = scn_newterm_stdio(), let window = scn_stdscr() else {
            TerminalGuard.uninstallSignalHandlers()
            TerminalGuard.release()
            let term = getenv("TERM").map { String(cString: $0) } ?? "(unset)"
            throw TerminalError(
                .setupFailed,
                "The terminal could not be set up (TERM=\(term)). Check that TERM names a terminal this machine knows.")
        }
        guard scn_can_address_cursor() != 0 else {
            endwin()
            delscreen(screen)
            TerminalGuard.uninstallSignalHandlers()
            TerminalGuard.release()
            let term = getenv("TERM").map { String(cString: $0) } ?? "(unset)"
            throw TerminalError(
                .setupFailed,
                "This terminal (TERM=\(term)) cannot move the cursor, so the inspector cannot draw its panes. Run it in a terminal that can (for example with TERM=xterm-256color), or use the plain-text commands: syncscope demo, syncscope run LESSON, syncscope device --headless.")
        }
        self.screen = screen
        self.window = window
        self.owner = pthread_self()

        if options.deliverCtrlCAsKey {
            raw()
        } else {
            cbreak()
        }
        noecho()
        nonl()
        keypad(window, true)
        leaveok(window, true)
        curs_set(0)
        set_escdelay(Int32(clamping: max(0, options.escapeDelayMs)))
        // Clicks and the wheel arrive as KEY_MOUSE (Shift-drag still selects text in most terminals).
        scn_enable_mouse()

        var colors = false
        var defaults = false
        if has_colors() {
            colors = start_color() == OK
            defaults = colors && use_default_colors() == OK
        }
        self.hasColors = colors
        self.defaultColorsWork = defaults
        self.size = Size(width: Int(scn_getmaxx(window)), height: Int(scn_getmaxy(window)))
        TerminalGuard.armEmergencyRestore()
    }

    deinit {
        restore()
    }

    /// The theme for this terminal and the process environment (`NO_COLOR`).
    public func environmentTheme() -> Theme {
        var environment: [String: String] = [:]
        if let value = getenv("NO_COLOR") {
            environment["NO_COLOR"] = String(cString: value)
        }
        return Theme.resolve(environment: environment, terminalHasColors: hasColors)
    }

    public func draw(_ buffer: CellBuffer) throws(TerminalError) {
        try checkUsable()
        let changes = buffer.diff(from: previous)
        for change in changes where !change.cell.isContinuation {
            guard change.x < size.width, change.y < size.height else { continue }
            put(change.cell, x: change.x, y: change.y)
        }
        wnoutrefresh(window)
        doupdate()
        previous = buffer
    }

    /// Forgets what is on screen, so the next `draw` repaints everything
    /// (for Ctrl-L, or after something else wrote to the terminal).
    public func invalidate() {
        guard !isRestored else { return }
        previous = nil
        clearok(scn_curscr(), true)
    }

    public func readKey(timeoutMs: Int) throws(TerminalError) -> KeyEvent? {
        try checkUsable()
        return nextKey(timeoutMs: timeoutMs)
    }

    /// Blocks in `poll(2)` on standard input and `wake` at once: a key, a
    /// write to the pipe (an effect ended) or the timeout ends the wait,
    /// whichever comes first. A resize (SIGWINCH) interrupts the wait too.
    public func readKey(timeoutMs: Int, wakingOn wake: WakePipe) throws(TerminalError) -> KeyEvent? {
        try checkUsable()
        // A key curses already holds (typed ahead, or the rest of a sequence) comes first.
        if let key = nextKey(timeoutMs: 0) { return key }
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, Int32(clamping: timeoutMs)) }
        if ready > 0, fds[1].revents != 0 { wake.drain() }
        // The time ran out, or a signal (a resize: curses then answers KEY_RESIZE), or input.
        guard ready <= 0 || fds[0].revents != 0 else { return nil }
        return nextKey(timeoutMs: 0)
    }

    /// One key from curses, waiting up to `timeoutMs` (-1: for ever).
    private func nextKey(timeoutMs: Int) -> KeyEvent? {
        wtimeout(window, timeoutMs < 0 ? -1 : Int32(clamping: timeoutMs))
        var code: wint_t = 0
        let status = wget_wch(window, &code)
        switch status {
        case KEY_CODE_YES where Int32(bitPattern: UInt32(code)) == KEY_MOUSE:
            var x: Int32 = 0
            var y: Int32 = 0
            switch scn_get_mouse(&x, &y) {
            case 1: return .mouse(MouseEvent(.press, x: Int(x), y: Int(y)))
            case 2: return .mouse(MouseEvent(.wheelUp, x: Int(x), y: Int(y)))
            case 3: return .mouse(MouseEvent(.wheelDown, x: Int(x), y: Int(y)))
            default: return .unknown(Int(KEY_MOUSE))  // a release or a motion: nothing to do
            }
        case KEY_CODE_YES:
            let key = Self.functionKey(Int32(bitPattern: UInt32(code)))
            if key == .resize {
                size = Size(width: Int(scn_getmaxx(window)), height: Int(scn_getmaxy(window)))
                invalidate()
            }
            return key
        case OK:
            return KeyEvent.fromCharacterCode(UInt32(code))
        default:
            return nil  // timeout (or interrupted)
        }
    }

    /// Writes the OSC 52 sequence for `text` straight to the terminal (after
    /// curses' last frame, which the sequence does not disturb). Inside tmux
    /// (`TMUX` set) it also sends the sequence wrapped for tmux's passthrough.
    public func copyToClipboard(_ text: String) -> Clipboard.Outcome {
        guard !isRestored else { return .unavailable("the terminal interface was already closed.") }
        let insideTmux = getenv("TMUX").map { String(cString: $0).isEmpty == false } ?? false
        let bytes = Clipboard.sequence(for: text, insideTmux: insideTmux)
        fflush(nil)  // curses' output first
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                return .unavailable("writing to the terminal failed (errno \(errno)).")
            }
            written += result
        }
        return .sent(viaTmux: insideTmux)
    }

    /// Gives the terminal back: ends curses and the signal handlers. Safe to
    /// call more than once.
    public func restore() {
        guard !isRestored else { return }
        isRestored = true
        endwin()
        TerminalGuard.disarmEmergencyRestore()
        delscreen(screen)
        TerminalGuard.uninstallSignalHandlers()
        TerminalGuard.release()
    }

    // MARK: private

    private func checkUsable() throws(TerminalError) {
        precondition(
            pthread_equal(pthread_self(), owner) != 0,
            "NcursesBackend used from a thread other than the one that created it")
        if isRestored {
            throw TerminalError(.closed, "The terminal interface was already closed.")
        }
    }

    private func put(_ cell: Cell, x: Int, y: Int) {
        let attributes = attributes(for: cell.style)
        let pair = colorPair(for: cell.style)
        var characters = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        if characters.isEmpty { characters = [wchar_t(32)] }
        if characters.count > Int(CCHARW_MAX) { characters = [characters[0]] }
        characters.append(0)
        let status = scn_put_wch(window, Int32(y), Int32(x), characters, attributes, pair)
        if status == SCN_BAD_CHARACTERS {
            // A cluster curses does not accept: show its first character.
            let fallback = [characters[0], 0]
            if scn_put_wch(window, Int32(y), Int32(x), fallback, attributes, pair) == SCN_BAD_CHARACTERS {
                _ = scn_put_wch(window, Int32(y), Int32(x), [wchar_t(63), 0], attributes, pair)
            }
        }
    }

    private func attributes(for style: Style) -> attr_t {
        var result = scn_A_NORMAL()
        if style.attributes.contains(.bold) { result |= scn_A_BOLD() }
        if style.attributes.contains(.reverse) { result |= scn_A_REVERSE() }
        if style.attributes.contains(.underline) { result |= scn_A_UNDERLINE() }
        if style.attributes.contains(.dim) { result |= scn_A_DIM() }
        return result
    }

    private func colorPair(for style: Style) -> Int32 {
        guard hasColors, style.foreground != .default || style.background != .default else { return 0 }
        let key = UInt16(style.foreground.rawValue) << 8 | UInt16(style.background.rawValue)
        if let pair = colorPairs[key] { return pair }
        guard nextColorPair < scn_COLOR_PAIRS(), nextColorPair <= Int32(Int16.max) else { return 0 }
        let pair = nextColorPair
        let foreground = curses(style.foreground, isBackground: false)
        let background = curses(style.background, isBackground: true)
        guard init_pair(Int16(pair), foreground, background) == OK else { return 0 }
        nextColorPair += 1
        colorPairs[key] = pair
        return pair
    }

    private func curses(_ color: Color, isBackground: Bool) -> Int16 {
        switch color {
        case .default: defaultColorsWork ? -1 : (isBackground ? 0 : 7)
        case .black: 0
        case .red: 1
        case .green: 2
        case .yellow: 3
        case .blue: 4
        case .magenta: 5
        case .cyan: 6
        case .white: 7
        }
    }

    static func functionKey(_ code: Int32) -> KeyEvent {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_IC: .insert
        case KEY_ENTER: .enter
        case KEY_BTAB: .backTab
        case KEY_RESIZE: .resize
        case scn_KEY_F(1)...scn_KEY_F(63): .function(Int(code - scn_KEY_F(0)))
        default: .unknown(Int(code))
        }
    }
}

/// Process-wide terminal bookkeeping that signal handlers can reach: the
/// terminal modes from before curses started and the escape sequences that
/// undo curses' changes, so a signal can restore the terminal using only
/// async-signal-safe calls (`write`, `tcsetattr`).
enum TerminalGuard {
    private static let owned = Atomic<Bool>(false)
    private static let armed = Atomic<Bool>(false)
    private static let atexitRegistered = Atomic<Bool>(false)
    private nonisolated(unsafe) static var shellMode: UnsafeMutablePointer<termios>?
    private nonisolated(unsafe) static var hasShellMode = false
    private nonisolated(unsafe) static var resetSequence: UnsafeMutableBufferPointer<UInt8>?
    private nonisolated(unsafe) static var previousHandlers: [(Int32, sighandler_t?)] = []
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Marks the terminal as owned; false when it already is.
    static func claim() -> Bool {
        owned.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    static func release() {
        owned.store(false, ordering: .releasing)
    }

    static func saveShellMode() {
        if shellMode == nil {
            shellMode = UnsafeMutablePointer<termios>.allocate(capacity: 1)
            shellMode?.initialize(to: termios())
        }
        if let shellMode {
            hasShellMode = tcgetattr(STDIN_FILENO, shellMode) == 0
        }
        _ = armed.load(ordering: .relaxed)  // initialise the statics the handlers read
        _ = resetSequence
    }

    /// Signals of a crash (a Swift trap is SIGILL or SIGTRAP): the terminal
    /// is restored, then the previous handler (the runtime's backtracer, or
    /// the default) takes the signal.
    static let fatalSignals: [Int32] = [SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE]
    /// The actions that were in place for the fatal signals, indexed by signal number.
    private nonisolated(unsafe) static var previousFatalActions: UnsafeMutablePointer<sigaction>?
    private nonisolated(unsafe) static var fatalHandlersInstalled = false

    static func installSignalHandlers() {
        guard previousHandlers.isEmpty else { return }
        for signalNumber in signals {
            previousHandlers.append((signalNumber, signal(signalNumber, terminalSignalHandler)))
        }
        installFatalHandlers()
        if atexitRegistered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            atexit(terminalAtExitHandler)
        }
    }

    static func uninstallSignalHandlers() {
        for (signalNumber, handler) in previousHandlers {
            signal(signalNumber, handler)
        }
        previousHandlers = []
        if fatalHandlersInstalled, let previous = previousFatalActions {
            for signalNumber in fatalSignals {
                sigaction(signalNumber, previous + Int(signalNumber), nil)
            }
            fatalHandlersInstalled = false
        }
    }

    private static func installFatalHandlers() {
        guard !fatalHandlersInstalled else { return }
        let table = previousFatalActions ?? {
            let table = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
            table.initialize(repeating: sigaction(), count: 65)
            return table
        }()
        previousFatalActions = table
        for signalNumber in fatalSignals where signalNumber < 65 {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = terminalFatalSignalHandler
            #else
            action.__sigaction_u.__sa_handler = terminalFatalSignalHandler
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signalNumber, &action, table + Int(signalNumber))
        }
        fatalHandlersInstalled = true
    }

    /// Async-signal-safe: puts back the action that was in place before ours.
    static func restorePreviousFatalAction(_ signalNumber: Int32) {
        guard let previous = previousFatalActions, signalNumber >= 0, signalNumber < 65 else {
            signal(signalNumber, SIG_DFL)
            return
        }
        sigaction(signalNumber, previous + Int(signalNumber), nil)
    }

    /// Captures the reset escape sequences (curses must be running) and lets
    /// signals and `exit()` restore the terminal from now on.
    static func armEmergencyRestore() {
        var bytes: [UInt8] = []
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = scn_tigetstr(capability) {
                bytes += Array(String(cString: value).utf8)
            }
        }
        if scn_tigetstr("rmcup") == nil {
            bytes += Array("\r\n".utf8)
        }
        if let old = resetSequence {
            old.deallocate()
        }
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = storage.initialize(from: bytes)
        resetSequence = UnsafeMutableBufferPointer(rebasing: storage[0..<bytes.count])
        armed.store(true, ordering: .releasing)
    }

    static func disarmEmergencyRestore() {
        armed.store(false, ordering: .releasing)
    }

    /// Async-signal-safe: undoes curses' changes once, if they are in force.
    static func emergencyRestore() {
        guard armed.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if let sequence = resetSequence, let base = sequence.baseAddress, sequence.count > 0 {
            _ = write(STDOUT_FILENO, base, sequence.count)
        }
        if hasShellMode, let shellMode {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, shellMode)
        }
    }
}

private func terminalSignalHandler(_ signalNumber: Int32) {
    TerminalGuard.emergencyRestore()
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}

private func terminalFatalSignalHandler(_ signalNumber: Int32) {
    TerminalGuard.emergencyRestore()
    TerminalGuard.restorePreviousFatalAction(signalNumber)
    raise(signalNumber)
}

private func terminalAtExitHandler() {
    TerminalGuard.emergencyRestore()
}
