import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

@Suite("Inspector keys")
struct InspectorKeysTests {
    @Test func tabVisitsEveryPaneAndHLMoveBetweenColumns() async throws {
        let inspector = try await makeInspector()
        var visited: [InspectorPane] = [inspector.state.pane]
        for _ in 0..<4 {
            await inspector.press(.tab)
            visited.append(inspector.state.pane)
        }
        #expect(visited == [.zones, .records, .tokens, .notifications, .zones])
        await inspector.press(.backTab)
        #expect(inspector.state.pane == .notifications)
        await inspector.press(.character("h"))
        #expect(inspector.state.pane == .tokens)
        await inspector.press(.right)
        #expect(inspector.state.pane == .notifications)
    }

    @Test func zoneSelectionSkipsDatabaseHeadingsAndFollowsTheZone() async throws {
        let inspector = try await makeInspector()
        #expect(inspector.state.zone?.zoneID == notesZone, "Notes is selected at start")
        var seen: [String] = []
        for _ in 0..<6 {
            await inspector.press(.character("j"))
            seen.append("\(inspector.state.zone?.scope.rawValue ?? "-") \(inspector.state.zone?.displayName(for: "alice") ?? "-")")
        }
        #expect(seen == ["private Photos", "private default", "public default", "public default", "public default", "public default"])
        await inspector.press(.character("k"))
        #expect(inspector.state.zone?.displayName(for: "alice") == "default")
        #expect(inspector.state.zone?.scope == .private, "k skips the public and shared headings back to a zone")
        await inspector.press(.character("g"))
        #expect(inspector.state.zone?.zoneID == notesZone)
        #expect(inspector.title(of: .records).contains("Records: Notes"))
    }

    @Test func numberKeysAndDFocusDevices() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("3"))
        #expect(inspector.state.device?.label == "iPad (bob)")
        #expect(inspector.lines[0].contains("3 iPad (bob)"))
        #expect(inspector.title(of: .zones).contains("Zones seen by iPad (bob)"))
        // bob sees alice's Notes in his shared database.
        let zones = inspector.pane(.zones)
        let shared = try #require(zones.firstIndex { $0.hasPrefix("shared database") })
        #expect(zones[shared + 1].hasPrefix("Notes@alice"), "\(zones)")
        await inspector.press(.character("d"))
        #expect(inspector.state.device?.name == "iPhone")
        await inspector.press(.character("D"))
        #expect(inspector.state.device?.name == "iPad")
        await inspector.press(.character("9"))
        #expect(inspector.state.device?.name == "iPad", "there is no ninth device")
    }

    @Test func destructiveActionsAskFirstAndRunOnlyAfterYes() async throws {
        let inspector = try await makeInspector()
        var state = inspector.state
        #expect(InspectorKeys.handle(.character("X"), state: &state).isEmpty)
        guard case .confirm(.deleteZone(notesZone), let question)? = state.overlay else {
            Issue.record("no confirmation: \(String(describing: state.overlay))")
            return
        }
        #expect(question.contains("Delete zone Notes from iPhone?"))
        #expect(InspectorKeys.handle(.character("n"), state: &state).isEmpty)
        #expect(state.overlay == nil)
        #expect(state.message?.text == "Cancelled.")
        _ = InspectorKeys.handle(.character("X"), state: &state)
        #expect(InspectorKeys.handle(.character("y"), state: &state) == [.deleteZone(notesZone, device: "iPhone")])
        _ = InspectorKeys.handle(.character("R"), state: &state)
        #expect(InspectorKeys.handle(.enter, state: &state) == [.encryptedDataReset(device: "iPhone")])
    }

    @Test func zoneActionsNeedAZoneTheDeviceOwns() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("3"))  // bob: Notes@alice is in his shared database
        try await inspector.selectZone("Notes@alice")
        var state = inspector.state
        #expect(InspectorKeys.handle(.character("X"), state: &state).isEmpty)
        #expect(state.overlay == nil)
        #expect(state.message?.text.contains("Only the owner can delete a zone") == true)
        // But bob can write records there.
        #expect(InspectorKeys.handle(.character("n"), state: &state).isEmpty)
        guard case .form(.newRecord(notesZone), _)? = state.overlay else {
            Issue.record("no record form: \(String(describing: state.overlay))")
            return
        }
    }

    @Test func theEditFormKeepsFieldTypesAndRefusesTextInANumberField() async throws {
        let inspector = try await makeInspector()
        try await inspector.selectZone("Photos")
        // photo-1 has a caption, a timestamp, a location and an asset: only the caption is text.
        try await inspector.selectRecord("photo-1")
        await inspector.press(.character("e"))
        var screen = inspector.lines.joined(separator: "\n")
        #expect(screen.contains("caption Beach at sunset"), "\(screen)")
        for field in ["taken", "place", "image"] { #expect(!screen.contains(field), "\(field) is not edited as text") }
        await inspector.press(.escape)
        // photo-2's width and height are numbers (INT64).
        try await inspector.selectRecord("photo-2")
        await inspector.press(.character("e"))
        screen = inspector.lines.joined(separator: "\n")
        #expect(screen.contains("width   4032"), "\(screen)")
        while inspector.focusedField != "width" { await inspector.press(.tab) }
        await inspector.press(.control("u"))
        await inspector.type("wide")
        await inspector.press(.enter)
        #expect(inspector.lines.joined(separator: "\n").contains("width is a whole number (INT64)."))
        await inspector.press(.control("u"))
        await inspector.type("3")
        var state = inspector.state
        let commands = InspectorKeys.handle(.enter, state: &state)
        guard case .saveRecord(let record, device: "iPhone")? = commands.first else {
            Issue.record("no save: \(commands)")
            return
        }
        #expect(record["width"] == .int64(3))
        #expect(record["height"] == .int64(3024), "fields are kept with their types")
        #expect(record["caption"] == .string("Harbour"))
    }

    @Test func clockKeysPauseStepAndChangeSpeed() async throws {
        let inspector = try await makeInspector()
        var state = inspector.state
        #expect(InspectorKeys.handle(.character(" "), state: &state) == [.setPaused(false)])
        #expect(InspectorKeys.handle(.character("+"), state: &state) == [.setSpeed(2)])
        #expect(InspectorKeys.handle(.character("-"), state: &state) == [.setSpeed(0.5)])
        #expect(InspectorKeys.handle(.character("."), state: &state) == [.step])
        #expect(InspectorKeys.handle(.character("q"), state: &state) == [.quit])
        #expect(InspectorKeys.handle(.ctrlC, state: &state) == [.quit])
        state.clock.speed = 50
        #expect(InspectorKeys.handle(.character("+"), state: &state) == [.setSpeed(50)], "50 is the top speed")
    }

    @Test func stepMovesThePausedClockToTheNextEvent() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("n"))
        await inspector.type("stepped")
        await inspector.press(.enter)
        let pending = try #require(inspector.simulation.nextEventTime)
        await inspector.press(.character("."))
        #expect(inspector.simulation.clock.now() == pending)
        #expect(inspector.state.clock.isPaused)
        #expect(inspector.state.message?.text.hasPrefix("Stepped to ") == true)
    }

    @Test func aKeyThatChangesNothingDrawsNothing() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("0"))
        #expect(inspector.state.needsRedraw, "still waiting for the first frame")
        var state = inspector.state
        state.needsRedraw = false
        #expect(InspectorKeys.handle(.character("Q"), state: &state).isEmpty)
        #expect(!state.needsRedraw)
        #expect(InspectorKeys.handle(.character("j"), state: &state).isEmpty)
        #expect(state.needsRedraw)
    }

    @Test func theWriterAndAutoFetchToggle() async throws {
        let inspector = try await makeInspector()
        #expect(inspector.lines[23].contains("writer off"))
        await inspector.press(.character("w"))
        #expect(inspector.simulation.writer?.isRunning == true)
        #expect(inspector.lines[23].contains("writer 3 s"))
        await inspector.press(.character("a"))
        #expect(inspector.simulation.device(named: "iPhone")?.engine.autoFetchOnPush == false)
        #expect(inspector.state.message?.text.contains("only records pushes") == true)
    }

    @Test func aBurstIsOneCommitAndOnePushOnTheOtherDevices() async throws {
        let inspector = try await makeInspector()
        let mac = try inspector.device("Mac")
        let before = mac.notifications.count
        await inspector.press(.character("W"))
        #expect(inspector.state.message?.text.contains("saved 20 notes in Notes and sent them in one request") == true)
        await inspector.settle()
        let received = mac.notifications.dropFirst(before)
        #expect(received.count == 1)
        #expect(mac.cachedRecords(in: notesZone).count == 25)
    }
}
