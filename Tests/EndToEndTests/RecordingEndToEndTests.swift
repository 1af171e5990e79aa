import Foundation
import SyncTestSupport
import Testing

@Suite("Recordings for slides", .serialized)
struct RecordingEndToEndTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-e2e-\(UUID().uuidString).cast").path
    }

    @Test func runWritesItsTranscriptAsACastTheSameEveryTime() throws {
        let first = temporaryPath()
        let second = temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let result = try BinaryRunner.run(["run", "token-before-data", "--cast", first])
        #expect(result.status == 0, "\(result.stderr)")
        let cast = try CastFile(path: first)
        #expect(cast.header["version"] as? Int == 2)
        #expect(cast.header["width"] as? Int == 100)
        #expect(cast.header["height"] as? Int == 40)
        #expect(cast.header["title"] as? String == "Token saved before the data: records lost for good")
        #expect(cast.header["timestamp"] == nil, "a run's cast is the same byte for byte")
        #expect(cast.events.allSatisfy { $0.code == "o" })
        #expect(cast.timesNeverGoBack)
        #expect(cast.events.count == result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count - 1)
        // The frames are what `run` printed, line by line.
        #expect(cast.output.replacingOccurrences(of: "\r\n", with: "\n") == result.stdout)
        let again = try BinaryRunner.run(["run", "token-before-data", "--cast", second])
        #expect(again.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
    }

    @Test func aCastThatCannotBeWrittenIsAClearError() throws {
        let result = try BinaryRunner.run(["run", "1", "--cast", "/no/such/folder/x.cast"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("Cannot create the recording /no/such/folder/x.cast"))
        #expect(result.stdout.isEmpty)
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: recording the inspector needs a terminal (apt-get install tmux)."))
    func aLessonPlayedLiveIsRecordedWithRealTimings() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let binary = BinaryRunner.binaryURL.path
        let tmux = try TmuxSession(
            command: "LC_ALL=C.UTF-8 '\(binary)' lesson 11 --record '\(path)'; echo \"lesson exited with status $?\"; sleep 60",
            width: 100, height: 34)
        try tmux.waitFor(text: "step 0 of")
        try tmux.send("Enter")
        try tmux.waitFor(text: "step 1 of")
        try tmux.send("t")
        try tmux.waitFor(text: "Steps of Token saved before the data")
        try tmux.send("Escape")
        try tmux.send("q")
        try tmux.waitFor(text: "lesson exited with status 0")
        let cast = try CastFile(path: path)
        #expect(cast.header["version"] as? Int == 2)
        #expect(cast.header["width"] as? Int == 100)
        #expect(cast.header["height"] as? Int == 34)
        #expect(cast.header["timestamp"] is Int)
        #expect(cast.events.count >= 4, "a frame at the start and one per key")
        #expect(cast.timesNeverGoBack)
        #expect(cast.events.last.map { $0.time > 0 } == true, "real timings")
        #expect(cast.events.first?.data.hasPrefix("\u{1B}[?25l\u{1B}[0m\u{1B}[2J") == true)
        #expect(cast.output.contains("Lesson · step 1 of"))
        #expect(cast.output.contains("Steps of Token saved before the data"))
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: recording the inspector needs a terminal (apt-get install tmux)."))
    func thePlainInspectorIsRecordedToo() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let binary = BinaryRunner.binaryURL.path
        let tmux = try TmuxSession(
            command: "LC_ALL=C.UTF-8 '\(binary)' --no-writer --paused --record '\(path)'; echo \"inspector exited with status $?\"; sleep 60",
            width: 90, height: 30)
        try tmux.waitFor(text: "Zones seen by")
        try tmux.send("Tab")
        try tmux.send("q")
        try tmux.waitFor(text: "inspector exited with status 0")
        let cast = try CastFile(path: path)
        #expect(cast.header["width"] as? Int == 90)
        #expect(cast.header["height"] as? Int == 30)
        #expect(cast.events.count >= 2)
        #expect(cast.output.contains("Zones seen by"))
    }

    /// A lesson's presenter notes are in the recording (for whoever presents
    /// it), and neither in the transcript nor in its JSON (the room's).
    @Test func presenterNotesAreInTheRecordingOnly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-e2e-\(UUID().uuidString).cast").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try BinaryRunner.run(["run", "duplicates-after-reinstall", "--cast", path])
        #expect(result.status == 0, "\(result.stderr)")
        let cast = try CastFile(path: path)
        #expect(cast.output.contains("[note] Let the room vote before Enter."), "\(cast.output.prefix(2000))")
        #expect(!result.stdout.contains("[note]"))
        #expect(!result.stdout.contains("Let the room vote"))
        // The question comes with its answer, headless.
        #expect(result.stdout.contains("Answer: B) Two. The second launch names its Inbox with another UUID"), "\(result.stdout)")
        let json = try BinaryRunner.run(["run", "duplicates-after-reinstall", "--json"])
        #expect(!json.stdout.contains("Let the room vote"))
    }
}
