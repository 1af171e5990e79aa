import Foundation
import SyncCore
import SyncTestSupport
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// A terminal just big enough to replay what the recorder wrote: cursor
/// moves, SGR (ignored), clear screen, text.
struct ReplayedScreen {
    var rows: [[Character]]
    var x = 0
    var y = 0

    init(width: Int, height: Int) {
        rows = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    mutating func feed(_ text: String) {
        var characters = Array(text)
        var index = 0
        while index < characters.count {
            let c = characters[index]
            if c == "\u{1B}", index + 1 < characters.count, characters[index + 1] == "[" {
                var end = index + 2
                while end < characters.count, !(characters[end].isLetter) { end += 1 }
                let parameters = String(characters[(index + 2)..<end])
                switch characters[end] {
                case "H":
                    let parts = parameters.split(separator: ";").compactMap { Int($0) }
                    y = (parts.first ?? 1) - 1
                    x = (parts.count > 1 ? parts[1] : 1) - 1
                case "J":
                    for row in rows.indices { rows[row] = Array(repeating: " ", count: rows[row].count) }
                default:
                    break  // m (style), l/h (cursor)
                }
                index = end + 1
                continue
            }
            if c == "\r" { x = 0 } else if c == "\n" { y += 1 } else if rows.indices.contains(y), rows[y].indices.contains(x) {
                rows[y][x] = c
                x += TextWidth.of(c) == 2 ? 2 : 1
            }
            index += 1
        }
        characters = []
    }

    var lines: [String] { rows.map { String($0).replacingOccurrences(of: "\u{0}", with: "") } }
}

@Suite("Recording the terminal (asciinema v2)")
struct RecordingTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-\(UUID().uuidString).cast").path
    }

    @Test func theRecordingReplaysToWhatTheTerminalShowedWithRealTimings() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = FakeRealClock()
        let inspector = try await makeInspector(size: Size(width: 80, height: 24), realClock: clock)
        let terminal = TestBackend(size: Size(width: 80, height: 24), script: [
            .keyAfter(250, .tab), .keyAfter(1_000, .character("j")), .keyAfter(500, .character("q")),
        ])
        terminal.onWait = { clock.advance(by: Milliseconds($0)) }
        let writer = try AsciicastWriter(path: path, width: 80, height: 24, title: "demo")
        let recorder = RecordingBackend(base: terminal, writer: writer, clock: clock)
        try await inspector.run(backend: recorder)

        let cast = try CastFile(path: path)
        #expect(cast.header["version"] as? Int == 2)
        #expect(cast.header["width"] as? Int == 80)
        #expect(cast.header["height"] as? Int == 24)
        #expect(cast.header["title"] as? String == "demo")
        #expect(cast.events.count == recorder.frames)
        #expect(cast.events.count == 3, "one frame at the start and one per key that changed the screen")
        #expect(cast.events.map(\.time) == [0, 0.25, 1.25])
        #expect(cast.frames[0].hasPrefix("\u{1B}[?25l\u{1B}[0m\u{1B}[2J"), "the first frame clears the screen")
        // Later frames carry only what changed.
        #expect(cast.frames[1].count < cast.frames[0].count / 2)
        var screen = ReplayedScreen(width: 80, height: 24)
        for (index, frame) in cast.frames.enumerated() {
            screen.feed(frame)
            if index == 0 { #expect(screen.lines[0].hasPrefix(" SyncScope │ 1 iPhone (alice)")) }
        }
        #expect(screen.lines == terminal.screen.lines(), "replaying every frame gives the terminal's last screen")
    }

    @Test func aResizeIsRecordedAndRedrawnWhole() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let terminal = TestBackend(size: Size(width: 80, height: 24))
        let recorder = RecordingBackend(base: terminal, writer: try AsciicastWriter(path: path, width: 80, height: 24), clock: FakeRealClock())
        var small = CellBuffer(size: Size(width: 80, height: 24))
        small.write("before", x: 0, y: 0)
        try recorder.draw(small)
        var big = CellBuffer(size: Size(width: 100, height: 30))
        big.write("after", x: 2, y: 29)
        try recorder.draw(big)
        let cast = try CastFile(path: path)
        #expect(cast.events.map(\.code) == ["o", "r", "o"])
        #expect(cast.events[1].data == "100x30")
        var screen = ReplayedScreen(width: 100, height: 30)
        screen.feed(cast.frames[1])
        #expect(screen.lines[29].hasPrefix("  after"))
        #expect(!screen.lines[0].contains("before"))
    }

    @Test func jsonStringsEscapeControlCharactersAndQuotes() {
        #expect(AsciicastWriter.jsonString("a\"b\\c\n\u{1B}[0m") == "\"a\\\"b\\\\c\\n\\u001b[0m\"")
        #expect(AsciicastWriter.seconds(1.5) == "1.500000")
        #expect(AsciicastWriter.seconds(0.000001) == "0.000001")
    }

    @Test func aRecordingThatCannotBeCreatedSaysWhere() {
        #expect(throws: AsciicastError.self) {
            _ = try AsciicastWriter(path: "/no/such/folder/x.cast", width: 80, height: 24)
        }
    }
}
