import SyncCore
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector

/// What users of k9s, lazygit and htop reach for: zoom, the mouse, sorting,
/// scroll positions, the footer's keys and `y` (OSC 52).
@Suite("Zoom, mouse, sort and copy")
struct PointerAndCopyTests {
    func run(_ inspector: InspectorController, _ steps: [TestBackend.Step], insideTmux: Bool = false) async throws -> TestBackend {
        let backend = TestBackend(size: inspector.state.screenSize, script: steps + [.key(.character("q"))])
        backend.insideTmux = insideTmux
        try await inspector.run(backend: backend)
        return backend
    }

    @Test func zFillsTheScreenWithTheFocusedPaneAndTabMovesTheZoom() async throws {
        var state = try await makeInspector().state
        _ = InspectorKeys.handle(.tab, state: &state)
        _ = InspectorKeys.handle(.character("Z"), state: &state)
        #expect(state.zoomed && state.pane == .records)
        #expect(state.layout.records == Rect(x: 0, y: 1, width: 80, height: 20))
        #expect(state.layout.zones.isEmpty && state.layout.tokens.isEmpty && state.layout.notifications.isEmpty)
        #expect(state.layout.visibleRows(of: .records) == 16)
        // Tab shows the next pane zoomed; at the end of the order comes the log.
        for _ in 0..<3 { _ = InspectorKeys.handle(.tab, state: &state) }
        #expect(state.pane == .events && state.layout.events == Rect(x: 0, y: 1, width: 80, height: 20))
        _ = InspectorKeys.handle(.character("Z"), state: &state)
        #expect(!state.zoomed && state.pane == .zones, "the log has no place at 80×24 unzoomed")
    }

    @Test func aClickFocusesThePaneAndSelectsTheRowAndTheWheelScrolls() async throws {
        let inspector = try await makeInspector()
        let layout = inspector.state.layout
        // The second record row: border, header, then rows.
        let records = layout.records
        let tokens = layout.tokens
        let backend = try await run(inspector, [
            .key(.mouse(MouseEvent(.press, x: records.x + 5, y: records.y + 3))),
        ])
        #expect(inspector.state.pane == .records)
        #expect(inspector.state.recordTable.selection == 1)
        #expect(inspector.state.selectedRecordName == "note-2")
        #expect(backend.screen.lines()[4].contains("note-2"))
        _ = try await run(inspector, [
            .key(.mouse(MouseEvent(.wheelDown, x: tokens.x + 3, y: tokens.y + 3))),
        ])
        #expect(inspector.state.pane == .tokens)
        #expect(inspector.state.tokenTable.selection == InspectorKeys.wheelStep)
        _ = try await run(inspector, [.key(.mouse(MouseEvent(.wheelUp, x: tokens.x + 3, y: tokens.y + 3)))])
        #expect(inspector.state.tokenTable.selection == 0)
        // A click on a border or the status line changes nothing.
        var state = inspector.state
        state.needsRedraw = false
        _ = InspectorKeys.handle(.mouse(MouseEvent(.press, x: 3, y: 23)), state: &state)
        #expect(!state.needsRedraw && state.pane == .tokens)
    }

    @Test func sCyclesTheRecordOrderAndTheHeaderShowsIt() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        try await inspector.selectZone("Notes")
        #expect(inspector.state.recordSort == .name)
        #expect(inspector.pane(.records).line(containing: "name▲") != nil)
        await inspector.press(.character("S"))
        #expect(inspector.state.recordSort == .modified)
        #expect(inspector.state.message?.text == "Records sorted by last change, newest first (S: next order).")
        #expect(inspector.pane(.records).line(containing: "modified by▼") != nil)
        let records = inspector.state.snapshot.records
        let stamps = (0..<records.count).compactMap { records.row(at: $0)?.server?.modified?.timestamp }
        #expect(stamps.count == records.count && stamps == stamps.sorted(by: >))
        // The name lookup still finds rows in another order.
        let last = try #require(records.row(at: records.count - 1)?.name)
        #expect(records.index(of: last) == (records.count - 1, true))
        await inspector.press(.character("S"))
        #expect(inspector.state.recordSort == .type)
        #expect(inspector.pane(.records).line(containing: "type▲") != nil)
        await inspector.press(.character("S"))
        #expect(inspector.state.recordSort == .name)
    }

    @Test func theSortComparatorIsAStrictTotalOrder() {
        func row(_ name: String, type: String, at time: Milliseconds?) -> RecordRow {
            var record = Record(recordID: RecordID(recordName: name, zoneID: RecordZoneID(zoneName: "Z", ownerName: "a")), recordType: type)
            record.modified = time.map { RecordStamp(timestamp: $0, userRecordName: "a") }
            return RecordRow(name: name, server: record, device: nil, marker: .new, hasPendingChange: false)
        }
        let rows = [row("note-10", type: "Note", at: 5), row("note-2", type: "Note", at: 5), row("a", type: "Photo", at: 9), row("b", type: "Ink", at: nil)]
        for sort in RecordSort.allCases {
            for a in rows {
                #expect(!sort.areInIncreasingOrder(a, a))
                for b in rows where a != b {
                    #expect(sort.areInIncreasingOrder(a, b) != sort.areInIncreasingOrder(b, a))
                }
            }
        }
        #expect(rows.sorted(by: RecordSort.name.areInIncreasingOrder).map(\.name) == ["a", "b", "note-2", "note-10"])
        #expect(rows.sorted(by: RecordSort.modified.areInIncreasingOrder).map(\.name) == ["a", "note-2", "note-10", "b"])
        #expect(rows.sorted(by: RecordSort.type.areInIncreasingOrder).map(\.name) == ["b", "note-2", "note-10", "a"])
    }

    @Test func everyScrollingPaneSaysWhereItIs() async throws {
        let inspector = try await makeInspector()
        let lines = inspector.lines
        let tokens = inspector.state.layout.tokens
        let total = inspector.state.snapshot.tokens.count
        #expect(lines[tokens.maxY - 1].contains(" 1–\(inspector.state.layout.visibleRows(of: .tokens)) of \(total) "), "\(lines.joined(separator: "\n"))")
        let zones = inspector.state.layout.zones
        #expect(lines[zones.maxY - 1].contains(" 7 rows "))
        await inspector.press(.character("E"))
        let count = EventLog.lines(inspector.state.snapshot.events, state: inspector.state.eventLog).count
        #expect(inspector.lines[20].contains("of \(count) "), "\(inspector.lines.joined(separator: "\n"))")
    }

    @Test func theFooterShowsTheFocusedPanesKeys() async throws {
        let inspector = try await makeInspector()
        #expect(inspector.lines[21] == " j/k zone  Enter records  Z zoom  y copy token  E log  f fetch   ? keys  q quit ")
        await inspector.press(.tab)
        #expect(inspector.lines[21].hasPrefix(" j/k record  S sort: name▲  Z zoom  y copy name  i open"))
        await inspector.press(.character("/"))
        #expect(inspector.lines[21].hasPrefix(" Enter keep the filter  Esc clear it"))
    }

    @Test func yCopiesTheRecordNameWithOSC52() async throws {
        let inspector = try await makeInspector()
        let backend = try await run(inspector, [.key(.tab), .key(.character("y"))])
        #expect(backend.clipboardWrites == [Array("\u{1B}]52;c;bm90ZS0x\u{07}".utf8)])
        let message = try #require(inspector.state.message)
        #expect(message.text == "Copied record name note-1: sent to the terminal's clipboard (OSC 52). If nothing arrived, your terminal does not support OSC 52.")
        #expect(message.kind == .success)
    }

    @Test func insideTmuxTheSequenceIsAlsoWrappedForPassthrough() async throws {
        let inspector = try await makeInspector()
        let token = try #require(inspector.state.snapshot.tokens.last?.token)
        let backend = try await run(inspector, [.key(.character("j")), .key(.character("j")), .key(.tab), .key(.tab), .key(.character("y"))], insideTmux: true)
        let osc = Array("\u{1B}]52;c;".utf8) + Clipboard.base64(Array(token.rawValue.utf8)) + [0x07]
        var wrapped = Array("\u{1B}Ptmux;\u{1B}".utf8) + osc
        wrapped += [0x1B, 0x5C]
        #expect(backend.clipboardWrites == [osc + wrapped])
        #expect(inspector.state.message?.text.hasPrefix("Copied token …\(token.shortForm): sent to the terminal's clipboard (OSC 52) (inside tmux") == true)
    }

    @Test func withoutATerminalYSaysItCannotCopy() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.tab, .character("y"))
        #expect(inspector.state.message == InspectorMessage("Could not copy record name note-1: no terminal is attached.", kind: .warning))
        var state = inspector.state
        state.snapshot.notifications = []
        state.pane = .notifications
        #expect(InspectorKeys.handle(.character("y"), state: &state).isEmpty)
        #expect(state.message?.text == "No notification to copy.")
    }

    @Test func base64MatchesRFC4648() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (text, encoded) in vectors {
            #expect(String(decoding: Clipboard.base64(Array(text.utf8)), as: UTF8.self) == encoded)
        }
    }
}
