import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// Each pane after a scripted sequence of simulation events (fixed seed,
/// virtual clock paused, writer stopped), driven through the keys.
@Suite("Inspector panes")
struct InspectorPaneTests {
    /// Saves a note on the focused device through the record form.
    func createNote(_ inspector: InspectorController, name: String, title: String) async {
        await inspector.press(.character("n"))
        await inspector.type(name)
        await inspector.press(.tab, .tab)
        await inspector.type(title)
        await inspector.press(.enter)
    }

    @Test func zonesShowBehindExpiredPurgedDeletedAndReset() async throws {
        let inspector = try await makeInspector()
        try await inspector.focus("Mac")
        await inspector.press(.character("o"))  // Mac offline
        #expect(inspector.state.message?.text.contains("Mac is offline") == true)
        try await inspector.focus("iPhone")
        await createNote(inspector, name: "fresh", title: "Fresh note")
        await inspector.settle()
        try await inspector.focus("Mac")
        #expect(inspector.pane(.zones).line(containing: "Notes")?.contains("behind 1") == true, "\(inspector.lines.joined(separator: "\n"))")

        // Compacting alice's history (from the iPhone) expires the Mac's older token.
        try await inspector.focus("iPhone")
        await inspector.press(.character("c"))
        #expect(inspector.lines.joined().contains("Compact alice's history on the server?"))
        await inspector.press(.character("y"))
        try await inspector.focus("Mac")
        #expect(inspector.pane(.zones).line(containing: "Notes")?.contains("expired") == true, "\(inspector.lines.joined(separator: "\n"))")
        #expect(inspector.state.message?.text.contains("compacted") == true)
        // The message names the device that was behind, not "a device" (an in-sync one would just succeed).
        // (The iPhone's token, from before its own save, expired too: its next fetch hits the error as well.)
        #expect(inspector.state.message?.text.contains("expired: iPhone (Notes), Mac (Notes).") == true, "\(String(describing: inspector.state.message))")

        // Back online, the Mac hears changeTokenExpired, refetches and catches up.
        await inspector.press(.character("o"))
        await inspector.settle()
        #expect(inspector.simulation.events.contains { "\($0)".contains("token expired") })
        #expect(inspector.pane(.zones).line(containing: "Notes")?.contains("in sync") == true, "\(inspector.lines.joined(separator: "\n"))")

        // Purge Photos from the iPhone.
        try await inspector.focus("iPhone")
        try await inspector.selectZone("Photos")
        await inspector.press(.character("P"), .character("y"))
        #expect(inspector.pane(.zones).line(containing: "Photos")?.contains("purged") == true, "\(inspector.lines.joined(separator: "\n"))")

        // A new zone, then deleted.
        await inspector.press(.character("z"))
        await inspector.type("Recipes")
        await inspector.press(.enter)
        #expect(inspector.pane(.zones).line(containing: "Recipes") != nil, "\(inspector.lines.joined(separator: "\n"))")
        try await inspector.selectZone("Recipes")
        await inspector.press(.character("X"), .character("y"))
        #expect(inspector.pane(.zones).line(containing: "Recipes")?.contains("deleted") == true, "\(inspector.lines.joined(separator: "\n"))")

        // An encrypted-data reset removes every private zone.
        await inspector.press(.character("R"), .character("y"))
        #expect(inspector.pane(.zones).line(containing: "Notes")?.contains("reset") == true, "\(inspector.lines.joined(separator: "\n"))")
    }

    @Test func recordsMarkWhatChangedSinceTheDevicesToken() async throws {
        let inspector = try await makeInspector()
        try await inspector.focus("Mac")
        await inspector.press(.character("o"))
        try await inspector.focus("iPhone")
        await createNote(inspector, name: "fresh", title: "Fresh note")
        // Edit note-3's title, delete note-4.
        try await inspector.selectRecord("note-3")
        let form = inspector.lines.joined(separator: "\n")
        try await inspector.editField("title", to: "Call the plumber back")
        #expect(inspector.state.overlay == nil, "\(inspector.lines.joined(separator: "\n"))")
        #expect(!form.isEmpty)
        try await inspector.selectRecord("note-4")
        await inspector.press(.character("x"), .character("y"))
        await inspector.settle()

        try await inspector.focus("Mac")
        let screen = inspector.lines.joined(separator: "\n")
        let records = inspector.pane(.records)
        #expect(records.line(containing: "fresh")?.hasPrefix("+ ") == true, "\(screen)")
        #expect(records.line(containing: "note-3")?.hasPrefix("~ ") == true, "\(screen)")
        #expect(records.line(containing: "note-4")?.hasPrefix("− ") == true, "\(screen)")
        #expect(records.line(containing: "note-2")?.hasPrefix("  ") == true, "\(screen)")
        #expect(records.last?.hasPrefix("+1 new ~1 chg −1 del ↑0 unsent") == true, "\(screen)")

        // The server's side has no note-4; the Mac's has no fresh.
        await inspector.press(.character("v"))
        #expect(inspector.title(of: .records).contains("· server"))
        #expect(inspector.pane(.records).line(containing: "note-4") == nil)
        #expect(inspector.pane(.records).line(containing: "fresh") != nil)
        await inspector.press(.character("v"))
        #expect(inspector.title(of: .records).contains("· Mac"))
        #expect(inspector.pane(.records).line(containing: "note-4") != nil)
        #expect(inspector.pane(.records).line(containing: "fresh") == nil)
        await inspector.press(.character("v"))

        // The detail of note-3 shows both versions.
        try await inspector.selectRecord("note-3")
        await inspector.press(.enter)
        let detail = inspector.lines.joined(separator: "\n")
        #expect(detail.contains("note-3 (Note) in Notes@alice"), "\(detail)")
        #expect(detail.contains("~ changed on the server since the device's token"), "\(detail)")
        #expect(detail.contains("\"Call the plumber back\""), "\(detail)")
        #expect(detail.contains("Mac's copy: tag"), "\(detail)")
        #expect(detail.contains("\"Call the plumber\"  (STRING)"), "\(detail)")
        await inspector.press(.escape)
        #expect(inspector.state.overlay == nil)
        await inspector.press(.character("i"))
        #expect(inspector.state.overlay == .recordDetail, "i opens the detail too")
        await inspector.press(.character("i"))

        // A record made on the offline Mac waits to be sent.
        await createNote(inspector, name: "from-mac", title: "Written offline")
        let mine = inspector.pane(.records).line(containing: "from-mac")
        #expect(mine?.hasPrefix("↑↑") == true, "\(inspector.lines.joined(separator: "\n"))")
        #expect(inspector.lines[23].contains("Mac OFFLINE"))
        #expect(inspector.lines[23].contains("1 to send"))
    }

    @Test func theFilterKeepsMatchingRecordsAndEscapeClearsIt() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("/"))
        await inspector.type("groc")
        #expect(inspector.lines[22].contains("Filter records: groc"))
        #expect(inspector.state.snapshot.records.count == 1)
        #expect(inspector.pane(.records).line(containing: "note-1") != nil, "\(inspector.lines.joined(separator: "\n"))")
        #expect(inspector.pane(.records).line(containing: "note-3") == nil)
        await inspector.press(.enter)
        #expect(inspector.pane(.records).last?.hasPrefix("/groc: 1 of 5 · Esc clears") == true)
        // Names match, and so does field text, whatever the case.
        await inspector.press(.character("/"), .control("u"))
        await inspector.type("bob")
        #expect(inspector.state.snapshot.records.count == 1)
        #expect(inspector.pane(.records).line(containing: "note-bob-1") != nil)
        await inspector.press(.control("u"))
        await inspector.type("TRIP")
        #expect(inspector.state.snapshot.records.count == 1)
        #expect(inspector.pane(.records).line(containing: "note-2") != nil, "its title is Trip ideas (Lisbon?)")
        await inspector.press(.escape)
        #expect(inspector.state.filter.isEmpty)
        #expect(inspector.state.snapshot.records.count == 5)
    }

    @Test func tokensListEveryBatchAndRewindShowsWhatAFetchWouldReturnNow() async throws {
        let inspector = try await makeInspector()
        try await inspector.focus("Mac")
        await inspector.press(.character("a"))  // auto-fetch off: pushes are only recorded
        #expect(inspector.lines[23].contains("Mac online · no auto-fetch"))
        try await inspector.focus("iPhone")
        for i in 1...3 { await createNote(inspector, name: "n\(i)", title: "Note \(i)") }
        await inspector.settle()
        try await inspector.focus("Mac")
        let before = inspector.state.snapshot.tokenTotal
        #expect(inspector.pane(.notifications).contains { $0.contains("auto off") }, "\(inspector.lines.joined(separator: "\n"))")

        await inspector.press(.character("L"), .control("u"))
        await inspector.type("2")
        await inspector.press(.enter)
        #expect(inspector.state.resultsLimit == 2)
        var steps = 0
        while steps < 6 {
            await inspector.press(.character("F"))
            steps += 1
            if inspector.state.message?.text.contains("zone Notes") == true && inspector.state.message?.text.contains("moreComing=false") == true { break }
        }
        let screen = inspector.lines.joined(separator: "\n")
        #expect(steps == 3, "a database batch, then two zone batches\n\(screen)")
        #expect(inspector.state.snapshot.tokenTotal == before + 3)
        let tokens = inspector.pane(.tokens)
        // Newest first: the second zone batch (1 change) above the first (2 changes, moreComing), above the database batch.
        #expect(tokens[1].contains("Notes") && tokens[1].contains("       1 ") && !tokens[1].contains("more"), "\(screen)")
        #expect(tokens[2].contains("Notes") && tokens[2].contains("more    2"), "\(screen)")
        #expect(tokens[3].contains("db private") && tokens[3].contains("#1"), "\(screen)")
        #expect(inspector.pane(.zones).line(containing: "Notes")?.contains("in sync") == true, "\(screen)")

        // Rewind to the Mac's Notes token from before the three notes.
        await inspector.press(.tab, .tab)
        #expect(inspector.state.pane == .tokens)
        let history = inspector.state.snapshot.tokens
        let older = try #require(history.prefix(before).lastIndex { $0.zoneID == notesZone })
        let oldRow = inspector.state.snapshot.tokenTotal - 1 - older
        for _ in 0..<oldRow { await inspector.press(.character("j")) }
        var rewind = inspector.pane(.records).joined(separator: "\n")
        #expect(inspector.title(of: .records).contains("Rewind to token …\(history[older].token.shortForm)"), "\(rewind)")
        #expect(rewind.contains("returns 3 changes"), "\(rewind)")
        #expect(rewind.contains("~ n1 (Note) changed"), "\(rewind)")
        #expect(rewind.contains("~ n3 (Note) changed"), "\(rewind)")

        // The newest token returns nothing; after compaction the old one is expired.
        await inspector.press(.character("g"))
        #expect(inspector.pane(.records).joined(separator: "\n").contains("returns nothing"))
        await inspector.press(.character("c"), .character("y"))
        for _ in 0..<oldRow { await inspector.press(.character("j")) }
        rewind = inspector.pane(.records).joined(separator: "\n")
        #expect(rewind.contains("This token has EXPIRED"), "\(rewind)")
        #expect(rewind.contains("(changeTokenExpired)."), "\(rewind)")
        #expect(rewind.contains("retention horizon"), "\(rewind)")
    }

    @Test func notificationsShowCoalescingLatencyAndTheFetchTheyTriggered() async throws {
        let inspector = try await makeInspector(size: Size(width: 140, height: 30))
        let mac = try inspector.device("Mac")
        let received = mac.notifications.count
        for i in 1...3 { await createNote(inspector, name: "q\(i)", title: "Note \(i)") }
        try await inspector.focus("Mac")
        // The clock is paused: the notification is still coalescing on the server.
        let waiting = inspector.pane(.notifications)
        #expect(waiting.line(containing: "coalesce")?.hasPrefix("…") == true, "\(inspector.lines.joined(separator: "\n"))")
        // The title counts what arrived and, apart, what is on its way: together what the footer counts.
        let pushRect = inspector.state.layout.notifications
        let border = inspector.lines[pushRect.y] + inspector.lines[pushRect.maxY - 1]
        let listed = inspector.state.snapshot.notifications.count
        #expect(border.contains("· \(received) received, 1 on the way"), "\(border)")
        #expect(border.contains(" \(listed) push"), "\(border)")
        #expect(listed == received + 1)
        await inspector.settle()
        #expect(mac.notifications.count == received + 1)
        let screen = inspector.lines.joined(separator: "\n")
        let row = try #require(inspector.pane(.notifications).dropFirst().first, "\(screen)")
        #expect(row.contains("db "), "\(screen)")
        #expect(row.contains("3→1"), "\(screen)")
        #expect(row.contains("private-changes"), "\(screen)")
        let run = try #require(mac.engine.fetchRuns.last)
        #expect(row.contains("#\(run.id) +3"), "\(screen)")
        #expect(row.contains("250ms"), "\(screen)")

        // note-1 is not done: editing it fires alice's query subscription for open notes too.
        try await inspector.focus("iPhone")
        try await inspector.selectRecord("note-1")
        try await inspector.editField("title", to: "Groceries and soap")
        await inspector.settle()
        try await inspector.focus("Mac")
        let query = try #require(inspector.pane(.notifications).line(containing: "note-1"), "\(inspector.lines.joined(separator: "\n"))")
        #expect(query.contains("query"))
        #expect(query.contains("updated"))
        #expect(query.contains("open-notes"))

        // Offline, the push service holds the latest notification for it.
        await inspector.press(.character("o"))
        try await inspector.focus("iPhone")
        await createNote(inspector, name: "while-away", title: "Away")
        await inspector.settle()
        try await inspector.focus("Mac")
        #expect(inspector.pane(.notifications).line(containing: "held") != nil, "\(inspector.lines.joined(separator: "\n"))")
    }

    @Test func errorsAndConflictsAppearInTheMessageLine() async throws {
        let inspector = try await makeInspector()
        // Fetching while offline is refused with a reason.
        await inspector.press(.character("o"), .character("f"))
        #expect(inspector.state.message?.kind == .warning)
        #expect(inspector.lines[22].contains("iPhone is offline"))
        // Both devices change the same note; the iPhone's change reaches the server second.
        try await inspector.selectRecord("note-3")
        try await inspector.editField("title", to: "Call the plumber (iPhone)")
        try await inspector.focus("Mac")
        try await inspector.editField("title", to: "Call the plumber (Mac)")
        try await inspector.focus("iPhone")
        await inspector.press(.character("o"))
        #expect(inspector.state.message?.text.contains("serverRecordChanged on note-3") == true, "\(String(describing: inspector.state.message))")

        // A server error: purging a zone that is already gone.
        await inspector.press(.character("z"))
        await inspector.type("Scratch")
        await inspector.press(.enter)
        try await inspector.selectZone("Scratch")
        await inspector.press(.character("X"), .character("y"))
        await inspector.press(.character("P"), .character("y"))
        #expect(inspector.state.message?.kind == .error)
        #expect(inspector.state.message?.text.contains("purge zone Scratch failed: zoneNotFound (ZONE_NOT_FOUND)") == true, "\(String(describing: inspector.state.message))")
        #expect(inspector.lines[22].hasPrefix(" ✗ iPhone: purge zone Scratch failed"))
    }
}
