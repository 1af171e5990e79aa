import Foundation
import Testing

/// A tmux server of our own (its own socket) running one program in a
/// detached session; keys go in with send-keys, the screen comes back with
/// capture-pane.
final class TmuxSession {
    static let executable: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in paths + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
            let candidate = directory + "/tmux"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    static var isAvailable: Bool { executable != nil }

    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var screen: String
        var description: String { "Timed out waiting for \(what). The screen was:\n\(screen)" }
    }

    let socket = "syncscope-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let name = "inspector"

    /// Starts `command` (run by sh) in a width × height window. With
    /// `keepDeadPane`, the pane stays (showing what it showed last) after the
    /// command ends.
    init(command: String, width: Int, height: Int, keepDeadPane: Bool = false) throws {
        var arguments = ["-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command]
        if keepDeadPane { arguments += [";", "set-option", "-t", name, "remain-on-exit", "on"] }
        try tmux(arguments)
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    /// Runs a tmux command through the shell with `popen` rather than
    /// `Process`: the first command forks the tmux server, which would inherit
    /// the socket `Process` watches for the child's exit, so waiting for that
    /// command would never end. Output is read only for `capture`.
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = false) throws -> String {
        let tmux = Self.executable ?? "tmux"
        let command = (["LC_ALL=C.UTF-8", Self.quote(tmux), "-L", socket] + arguments.map(Self.quote)).joined(separator: " ")
        let redirections = capture ? " </dev/null 2>/dev/null" : " </dev/null >/dev/null 2>&1"
        guard let pipe = popen(command + redirections, "r") else {
            throw Failure(description: "could not run tmux \(arguments.first ?? "")")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        if status != 0 { throw Failure(description: "tmux \(arguments.first ?? "") failed (status \(status))") }
        return String(decoding: output, as: UTF8.self)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func quote(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A session's command: the `syncscope` under test with `arguments` (each
    /// quoted) in a UTF-8 locale, then "`label` exited with status N" and a
    /// pause, so the test can read how it ended.
    static func syncscope(_ arguments: [String], label: String) -> String {
        let command = (["LC_ALL=C.UTF-8", quote(BinaryRunner.binaryURL.path)] + arguments.map(quote)).joined(separator: " ")
        return "\(command); echo \"\(label) exited with status $?\"; sleep 60"
    }

    /// Sends named keys (`Tab`, `Enter`, `q`…).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", name] + keys)
    }

    /// Types text literally.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", name, "-l", text])
    }

    func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-t", name], capture: true)
    }

    /// Polls the screen until `condition` holds (at most `seconds`); returns that screen.
    @discardableResult
    func waitFor(_ what: String, seconds: Double = 20, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        repeat {
            last = try screen()
            if condition(last) { return last }
            usleep(40_000)  // between polls of a condition, never as a wait of its own
        } while Date() < deadline
        throw Timeout(what: what, screen: last)
    }

    @discardableResult
    func waitFor(text: String, seconds: Double = 20) throws -> String {
        try waitFor("\"\(text)\"", seconds: seconds) { $0.contains(text) }
    }
}

@Suite("Inspector end to end", .serialized)
struct InspectorEndToEndTests {
    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: the inspector's end-to-end test needs it (apt-get install tmux)."))
    func aRecordSavedOnTheIPhoneReachesTheMacThroughAPushAndAFetch() throws {
        let binary = BinaryRunner.binaryURL.path
        let tmux = try TmuxSession(
            command: "LC_ALL=C.UTF-8 '\(binary)' --no-writer; echo \"inspector exited with status $?\"; sleep 60",
            width: 100, height: 30)

        try tmux.waitFor(text: "Zones seen by iPhone (alice)")
        try tmux.waitFor(text: "note-bob-1")

        // Select a zone: down to Photos, back up to Notes.
        try tmux.send("j")
        try tmux.waitFor(text: "photo-1")
        try tmux.send("k")
        try tmux.waitFor(text: "note-bob-1")

        // Create a record on the iPhone through the form.
        try tmux.send("n")
        try tmux.waitFor(text: "New record in Notes on iPhone")
        try tmux.type("e2e-note")
        try tmux.send("Tab", "Tab")
        try tmux.type("Hello from tmux")
        try tmux.send("Enter")
        try tmux.waitFor(text: "iPhone saved e2e-note in Notes")

        // On the Mac: the push arrived, it triggered a fetch, and the record is in its cache.
        try tmux.send("2")
        let mac = try tmux.waitFor("the Mac's push and fetch") { screen in
            screen.contains("Zones seen by Mac (alice)") && screen.contains("e2e-note")
                && screen.range(of: #"db\s+private\s+1 #\d+ \+1"#, options: .regularExpression) != nil
        }
        let notesLine = mac.split(separator: "\n").first { $0.contains("Notes ") && $0.contains("recs") == false && $0.contains("in sync") }
        #expect(notesLine != nil, "the Mac's Notes zone is in sync after the fetch:\n\(mac)")

        // Quit: the terminal comes back and the program ends cleanly.
        try tmux.send("q")
        let after = try tmux.waitFor(text: "inspector exited with status 0")
        #expect(!after.contains("Zones seen by"), "the inspector's screen is gone after quitting:\n\(after)")
    }

    /// Ctrl-C, a termination request and a crash's SIGABRT each end the
    /// inspector with the terminal given back: the pane (kept after the
    /// process dies) no longer shows the inspector's alternate screen.
    @Test(
        .enabled(if: TmuxSession.isAvailable, "tmux is not installed: the inspector's end-to-end test needs it (apt-get install tmux)."),
        arguments: [("C-c", SIGINT), ("TERM", SIGTERM), ("ABRT", SIGABRT)])
    func aSignalEndsTheInspectorWithTheTerminalRestored(_ how: String, _ signalNumber: Int32) throws {
        let binary = BinaryRunner.binaryURL.path
        // Without the runtime's crash report (slow, and it waits for a key on a terminal) the crash ends at once.
        let tmux = try TmuxSession(
            command: "SWIFT_BACKTRACE=enable=no exec '\(binary)' --no-writer --paused", width: 100, height: 30, keepDeadPane: true)
        try tmux.waitFor(text: "Zones seen by iPhone (alice)")
        if how == "C-c" {
            try tmux.send("C-c")
        } else {
            let pid = try #require(pid_t(try tmux.tmux(["display-message", "-p", "-t", tmux.name, "#{pane_pid}"], capture: true)
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(kill(pid, signalNumber) == 0)
        }
        let dead = try tmux.waitFor("the inspector to end") { _ in
            (try? tmux.tmux(["display-message", "-p", "-t", tmux.name, "#{pane_dead}"], capture: true))?.hasPrefix("1") == true
        }
        let screen = try tmux.screen()
        #expect(!screen.contains("Zones seen by") && !screen.contains("SyncScope │"), "the inspector's screen is still up:\n\(screen)\n\(dead)")
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: the inspector's end-to-end test needs it (apt-get install tmux)."))
    func aLessonPlaysStepByStepAndStartsAgain() throws {
        let binary = BinaryRunner.binaryURL.path
        let tmux = try TmuxSession(
            command: "LC_ALL=C.UTF-8 '\(binary)' lesson 1; echo \"lesson exited with status $?\"; sleep 60", width: 100, height: 34)
        try tmux.waitFor(text: "· First fetch: no token")
        try tmux.waitFor(text: "step 0 of")
        try tmux.send("Enter")
        try tmux.waitFor(text: "Alice keeps notes in a zone called Notes")
        for _ in 0..<6 { try tmux.send("Enter") }
        // The steps ran: the iPhone created Notes and sent three notes.
        try tmux.waitFor("the lesson's zone and notes") { $0.contains("step 7 of") && $0.contains("note-3") }
        try tmux.send("b")
        try tmux.waitFor(text: "Back to the start of the lesson")
        try tmux.waitFor(text: "step 0 of")
        try tmux.send("q")
        try tmux.waitFor(text: "lesson exited with status 0")
    }

    @Test func withoutATerminalItSaysSoAndFails() throws {
        let result = try BinaryRunner.run([])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty, "no escape sequences or other garbage on standard output")
        #expect(result.stderr.contains("syncscope needs a terminal; try `syncscope demo` for the headless tour."))
        let lesson = try BinaryRunner.run(["lesson", "1"])
        #expect(lesson.status != 0)
        #expect(lesson.stdout.isEmpty)
        #expect(lesson.stderr.contains("syncscope needs a terminal; try `syncscope run 1` for the headless version."))
    }
}
