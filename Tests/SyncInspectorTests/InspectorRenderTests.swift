import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

@Suite("Inspector screens")
struct InspectorRenderTests {
    @Test func theMainScreenShowsDevicesZonesRecordsTokensPushAndStatus() async throws {
        let inspector = try await makeInspector()
        let lines = inspector.lines
        let screen = lines.joined(separator: "\n")
        #expect(lines.count == 24)
        #expect(lines.allSatisfy { TextWidth.of($0) == 80 })
        #expect(lines[0].hasPrefix(" SyncScope │ 1 iPhone (alice) │ 2 Mac (alice) │ 3 iPad (bob) │ "))
        // Zones of alice, by database, all caught up after the demo's setup.
        let zones = inspector.pane(.zones)
        #expect(zones[0].hasPrefix("zone        recs server  device  state"), "\(screen)")
        #expect(zones[1].hasPrefix("private database"))
        #expect(zones.line(containing: "Notes")?.contains("in sync") == true, "\(screen)")
        #expect(zones.line(containing: "Photos")?.contains("    2 ") == true, "\(screen)")
        #expect(zones.contains { $0.hasPrefix("shared database") })
        #expect(zones.contains { $0.hasPrefix("public database") })
        // Records of Notes, server and device side by side.
        #expect(inspector.title(of: .records).contains("Records: Notes · server|iPhone"))
        let records = inspector.pane(.records)
        #expect(records[0].hasPrefix("   name"))
        #expect(records.map { String($0.dropFirst(3).prefix(14)) }.filter { $0.hasPrefix("note-") }.count == 5, "\(screen)")
        #expect(records.last == "+0 new ~0 chg −0 del ↑0 unsent    ")
        // Tokens: a database token per scope and a zone token per zone.
        let tokens = inspector.pane(.tokens)
        #expect(tokens.line(containing: "db private") != nil, "\(screen)")
        #expect(tokens.line(containing: "db shared") != nil)
        #expect(tokens.line(containing: "Notes") != nil)
        // The status line: paused clock, focused device, hints.
        #expect(lines[23].hasPrefix(" ⏸ PAUSED 00:00:0"))
        #expect(lines[23].contains("iPhone online · auto-fetch · writer off"))
        // Above the message line: the focused pane's keys, then help and quit.
        #expect(lines[21].hasPrefix(" j/k zone  Enter records  Z zoom  y copy token"), "\(screen)")
        #expect(lines[21].hasSuffix("? keys  q quit "))
    }

    @Test func theSameSeedDrawsTheSameScreen() async throws {
        let a = try await makeInspector(seed: 5)
        let b = try await makeInspector(seed: 5)
        #expect(a.frame() == b.frame())
    }

    @Test func theHelpPageShowsEveryKeyOnAnEightyByTwentyFourScreen() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("?"))
        let screen = inspector.lines.joined(separator: "\n")
        for section in InspectorKeys.help {
            #expect(screen.contains(section.title), "missing \(section.title)\n\(screen)")
            for entry in section.entries {
                #expect(screen.contains(entry.keys + " "), "missing keys \(entry.keys)\n\(screen)")
                #expect(screen.contains(entry.description), "cut: \(entry.description)\n\(screen)")
            }
        }
        #expect(!screen.contains("Zones seen by"), "the help covers the panes")
        await inspector.press(.escape)
        #expect(inspector.state.overlay == nil)
        #expect(inspector.lines.joined().contains("Zones seen by"))
    }

    @Test func aSmallTerminalAsksToEnlargeTheWindow() async throws {
        let inspector = try await makeInspector(size: Size(width: 79, height: 23))
        let lines = inspector.lines
        #expect(lines.joined(separator: "\n").contains("Enlarge the window to at least 80×24 (now 79×23)"))
        #expect(!lines.joined().contains("Zones"))
        inspector.resize(to: Size(width: 80, height: 24))
        #expect(inspector.lines.joined().contains("Zones seen by iPhone"))
    }

    @Test func theRecordFormShowsItsFieldsAndSaysWhatIsMissing() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("n"))
        var screen = inspector.lines.joined(separator: "\n")
        #expect(screen.contains("New record in Notes on iPhone"), "\(screen)")
        for label in ["name", "type  Note", "title", "body", "Enter submit · Tab next · Esc cancel"] {
            #expect(screen.contains(label), "missing \(label)\n\(screen)")
        }
        await inspector.press(.enter)
        screen = inspector.lines.joined(separator: "\n")
        #expect(screen.contains("Give the record a name, e.g. note-1."), "\(screen)")
        #expect(inspector.simulation.device(named: "iPhone")?.pendingChangeCount == 0)
        await inspector.press(.escape)
        #expect(inspector.state.overlay == nil)
    }

    @Test func wideCharactersKeepTheColumnsAndBordersAligned() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("n"))
        await inspector.type("tokyo")
        await inspector.press(.tab, .tab)
        await inspector.type("東京 café 🎉 notes")
        await inspector.press(.enter)
        let lines = inspector.lines
        let row = try #require(lines.first { $0.contains("tokyo") })
        #expect(row.contains("東京"), "\(lines.joined(separator: "\n"))")
        for line in lines {
            #expect(TextWidth.of(line) == 80, "misaligned: \(line)")
        }
        let frame = inspector.frame()
        let y = try #require(lines.firstIndex(of: row))
        #expect(frame[x: 79, y: y].text == "│", "the right border stays in the last column")
    }

    @Test func withoutColoursEveryCellUsesTheTerminalsOwnColours() async throws {
        let inspector = try await makeInspector()
        let mono = inspector.frame()
        #expect(mono.cells.allSatisfy { $0.style.foreground == .default && $0.style.background == .default })
        inspector.view = InspectorView(theme: .colored)
        let colored = inspector.frame()
        #expect(colored.cells.contains { $0.style.foreground != .default || $0.style.background != .default })
        #expect(mono.lines() == colored.lines(), "colours change no text")
    }

    @Test func aTallScreenAddsTheEventsPaneAndTwoMessageLines() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        let lines = inspector.lines
        let layout = InspectorLayout(size: Size(width: 120, height: 40))
        let events = try #require(layout.events)
        #expect(lines[events.y].contains("What happened"))
        #expect(lines[events.y + 1..<events.maxY - 1].contains { $0.contains("iPad:") || $0.contains("iPhone:") || $0.contains("Mac:") })
        #expect(layout.message.height == 2)
    }

    @Test func recordRowsAreRebuiltOnlyWhenTheZoneOrTheDevicesCopyChanged() async throws {
        let inspector = try await makeInspector()
        let builds = inspector.recordListBuilds
        await inspector.refresh()
        await inspector.press(.tab, .tab, .character("?"), .escape)
        #expect(inspector.recordListBuilds == builds, "nothing changed in Notes")
        // bob writes in a zone of his own: alice's Notes is untouched.
        let iPad = try inspector.device("iPad")
        await inspector.simulation.createZone("Journal", on: iPad)
        await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "entry-1", zoneID: RecordZoneID(zoneName: "Journal", ownerName: "bob")),
                   recordType: "Entry", fields: ["text": "hi"]), on: iPad)
        await inspector.settle()
        #expect(inspector.recordListBuilds == builds)
        // A change in Notes is applied to the rows, not rebuilt (RecordRowsModel).
        let updates = inspector.recordListUpdates
        let mac = try inspector.device("Mac")
        await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "from-mac", zoneID: notesZone), recordType: "Note", fields: ["title": "Mac"]), on: mac)
        await inspector.refresh()
        #expect(inspector.recordListBuilds == builds)
        #expect(inspector.recordListUpdates == updates + 1)
        #expect(inspector.state.snapshot.records.rows.contains { $0.name == "from-mac" && $0.marker == .new })
        await inspector.refresh()
        #expect(inspector.recordListBuilds == builds)
        #expect(inspector.recordListUpdates == updates + 1)
    }
}
