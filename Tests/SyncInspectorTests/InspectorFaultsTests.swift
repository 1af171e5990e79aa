import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// The faults overlay (`!`): throttling, an outage, push loss or read lag for
/// the focused device or everyone; injected faults in the event log; the
/// status line says faults are active. Checked on the cell buffer.
@Suite struct InspectorFaultsTests {
    @Test func theOverlayListsTheChoicesAndTheTarget() async throws {
        let inspector = try await makeInspector(size: Size(width: 100, height: 30))
        let device = try #require(inspector.state.device?.name)
        await inspector.press(.character("!"))
        let screen = inspector.frame().render()
        #expect(screen.contains("Faults"))
        #expect(screen.contains("t  throttle sends: THROTTLED, retry in 3 s"))
        #expect(screen.contains("o  outage: TRY_AGAIN_LATER"))
        #expect(screen.contains("p  push loss"))
        #expect(screen.contains("r  read lag"))
        #expect(screen.contains("e  for: \(device)"))
        #expect(screen.contains("No faults in force."))
        await inspector.press(.character("e"))
        #expect(inspector.frame().render().contains("e  for: every device"))
        await inspector.press(.escape)
        #expect(!inspector.frame().render().contains("No faults in force."))
    }

    @Test func throttlingTheFocusedDeviceShowsInTheStatusLineAndTheEventLog() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        let device = try #require(inspector.state.device?.name)
        #expect(!inspector.frame().lines().last!.contains("FAULTS"))
        await inspector.press(.character("!"), .character("t"))
        let rules = inspector.simulation.server.faultRules
        #expect(rules.count == 1)
        #expect(rules.first?.rule.effect == .throttled(retryAfter: 3))
        #expect(rules.first?.rule.match.device == device)
        #expect(inspector.frame().lines().last!.contains("FAULTS 1"))
        // A save on that device is throttled, and its engine says it waits 3 s.
        let zone = try #require(inspector.simulation.device(named: device)?.knownZones().first)
        _ = await inspector.simulation.save(Record(recordID: RecordID(recordName: "faulted", zoneID: zone), recordType: "Note", fields: ["title": "x"]), on: try inspector.device(device))
        await inspector.refresh()
        let descriptions = inspector.simulation.events.map(\.description)
        #expect(descriptions.contains { $0.contains("THROTTLED, retry in 3 s (retryAfter), attempt 1") }, "\(descriptions.suffix(10))")
        #expect(descriptions.contains { $0.contains("injected throttled on records/modify") })
        // The event log pane shows the fault first, so it fits: "THROTTLED, retry in 3 s (injected on records/modify)".
        let events = inspector.lines.filter { $0.contains("(injected on records/modify)") }
        #expect(events.contains { $0.contains("\(device): THROTTLED, retry in 3 s (injected on records/modify)") }, "\(inspector.lines.joined(separator: "\n"))")
        // Clearing: the status line no longer says so.
        await inspector.press(.character("!"), .character("c"))
        #expect(inspector.simulation.server.faultRules.isEmpty)
        #expect(!inspector.frame().lines().last!.contains("FAULTS"))
    }

    @Test func eachChoiceForEveryone() async throws {
        let inspector = try await makeInspector()
        for (key, kind) in [("o", FaultKind.serviceUnavailable), ("p", .pushDrop), ("r", .readLag)] {
            await inspector.press(.character("!"), .character("e"), .character(Character(key)))
            // e toggles: every other choice is for everyone.
            let rule = try #require(inspector.simulation.server.faultRules.last?.rule)
            #expect(rule.effect.kind == kind)
        }
        let targets = inspector.simulation.server.faultRules.map(\.rule.match.device)
        #expect(targets.filter { $0 == nil }.count == 2)
        #expect(inspector.frame().lines().last!.contains("FAULTS 3"))
    }

    @Test func droppedPushesAreMarkedInTheEventLog() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        await inspector.press(.character("!"), .character("e"), .character("p"))
        let sim = inspector.simulation
        let writer = try #require(sim.devices.first)
        let zone = try #require(writer.knownZones().first { $0.ownerName == writer.user })
        _ = await sim.save(Record(recordID: RecordID(recordName: "unheard", zoneID: zone), recordType: "Note", fields: ["title": "x"]), on: writer)
        await sim.advance(by: 2_000)
        #expect(sim.events.map(\.description).contains { $0.contains("dropped (injected fault)") })
    }

    /// Saves a note on the iPhone (the Mac's database subscription fires) and lets pushes arrive.
    func saveOnIPhone(_ inspector: InspectorController, _ name: String, advance: Milliseconds = 2_000) async throws {
        let sim = inspector.simulation
        let phone = try inspector.device("iPhone")
        _ = await sim.save(Record(recordID: RecordID(recordName: name, zoneID: notesZone), recordType: "Note", fields: ["title": "x"]), on: phone)
        await sim.advance(by: advance)
        await inspector.refresh()
    }

    @Test func pushLossFromTheOverlayIsMarkedDroppedInThePushFeedAndTheEventLog() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        let mac = try inspector.device("Mac")
        let received = mac.notifications.count
        await inspector.press(.character("!"), .character("e"), .character("p"))
        try await saveOnIPhone(inspector, "unheard")
        #expect(mac.notifications.count == received, "the Mac got nothing")
        try await inspector.focus("Mac")
        let feed = inspector.pane(.notifications)
        let row = try #require(feed.line(containing: "dropped"), "\(inspector.lines.joined(separator: "\n"))")
        #expect(row.contains("db "), "the Mac's database subscription's notification: \(row)")
        #expect(feed.dropFirst().first == row, "newest first: \(feed)")
        #expect(feed.dropLast().filter { $0.contains("dropped") }.count == 1, "\(feed.joined(separator: "\n"))")
        #expect(feed.last?.contains("dropped at") == true, "the detail line of the selected row: \(feed.joined(separator: "\n"))")
        // Its row is drawn in the warning style (once the selection moves off it).
        for _ in InspectorPane.allCases where inspector.state.pane != .notifications { await inspector.press(.tab) }
        await inspector.press(.character("j"))
        let rect = inspector.state.layout.rect(of: .notifications).inset(by: 1)
        let y = try rect.y + #require(feed.firstIndex(of: row))
        let frame = inspector.frame()
        let offset = try #require(row.range(of: "dropped")).lowerBound.utf16Offset(in: row)
        #expect(frame[x: rect.x + offset, y: y].text == "d")
        #expect(frame[x: rect.x + offset, y: y].style == Theme.monochrome.warning)
        // The event log says so, device by name.
        #expect(inspector.lines.contains { $0.contains("push to Mac dropped (injected fault") }, "\(inspector.lines.joined(separator: "\n"))")
    }

    @Test func aDuplicatedPushIsMarkedOnTheCopyThatCameLater() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        let mac = try inspector.device("Mac")
        let received = mac.notifications.count
        inspector.simulation.addFaults(FaultPlan([FaultRule(.pushDuplicate, match: FaultMatch(device: "Mac"), frequency: FaultFrequency(times: 1))]))
        try await saveOnIPhone(inspector, "twice")
        #expect(mac.notifications.count == received + 2)
        let ids = mac.notifications.suffix(2).map(\.notification.notificationID)
        #expect(ids[0] == ids[1], "the same notification, twice")
        try await inspector.focus("Mac")
        let feed = Array(inspector.pane(.notifications).dropFirst())
        #expect(feed[0].contains("duplicate"), "the newer copy: \(feed)")
        #expect(!feed[1].contains("duplicate"), "the original: \(feed)")
        #expect(feed.dropLast().filter { $0.contains("duplicate") }.count == 1, "\(feed.joined(separator: "\n"))")
        // Selecting it, the detail line says what the fault did and what the fetch did.
        for _ in InspectorPane.allCases where inspector.state.pane != .notifications { await inspector.press(.tab) }
        await inspector.press(.character("g"))
        let detail = try #require(inspector.pane(.notifications).last)
        #expect(detail.contains("injected fault: duplicate"), "\(detail)")
    }

    @Test func aDelayedPushIsMarkedWhileOnItsWayAndOnceItArrives() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        inspector.simulation.addFaults(FaultPlan([FaultRule(.pushDelay(5_000), match: FaultMatch(device: "Mac"), frequency: FaultFrequency(times: 1))]))
        try await saveOnIPhone(inspector, "late", advance: 1_000)
        try await inspector.focus("Mac")
        let waiting = try #require(inspector.pane(.notifications).dropFirst().first)
        #expect(waiting.hasPrefix("…") && waiting.contains("delayed"), "on its way: \(waiting)")
        await inspector.settle()
        let arrived = try #require(inspector.pane(.notifications).dropFirst().first)
        #expect(!arrived.hasPrefix("…") && arrived.contains("delayed"), "arrived: \(arrived)")
        #expect(arrived.contains("5."), "its latency shows the delay: \(arrived)")
    }

    @Test func theHelpListsTheFaultsKey() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("?"))
        let row = try #require(inspector.lines.first { $0.contains("faults: throttle, outage") }, "\(inspector.lines.joined(separator: "\n"))")
        #expect(row.contains("!" + String(repeating: " ", count: 9) + "faults: throttle, outage…"), "the key in the keys column: \(row)")
        await inspector.press(.escape, .character("!"))
        #expect(inspector.state.overlay == .faults)
    }

    /// The lines of the event log pane (the bottom right of a tall screen).
    func eventLog(_ inspector: InspectorController) throws -> [String] {
        let rect = try #require(inspector.state.layout.events).inset(by: 1)
        let frame = inspector.frame()
        return (rect.y..<rect.maxY).map { y in
            var line = ""
            for x in rect.x..<rect.maxX where !frame[x: x, y: y].isContinuation { line += frame[x: x, y: y].text }
            return line
        }
    }

    @Test func anOutageFromTheOverlayShowsInTheEventLogAndTheStatusLine() async throws {
        let inspector = try await makeInspector(size: Size(width: 130, height: 40))
        let device = try #require(inspector.state.device?.name)
        await inspector.press(.character("!"), .character("o"))
        #expect(inspector.lines.last?.contains("FAULTS 1") == true)
        let zone = try #require(inspector.simulation.device(named: device)?.knownZones().first)
        _ = await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "in-outage", zoneID: zone), recordType: "Note", fields: ["title": "x"]), on: try inspector.device(device))
        await inspector.refresh()
        let log = try eventLog(inspector)
        // The fault and the engine's retries after it: "iPhone: records/modify: TRY_AGAIN_LATER, retry in 10 s (retryAfter), attempt 3".
        #expect(log.contains { $0.contains("\(device): ") && $0.contains("TRY_AGAIN_LATER, retry in 10 s") }, "\(log.joined(separator: "\n"))")
    }

    @Test func readLagFromTheOverlayShowsInTheEventLog() async throws {
        let inspector = try await makeInspector(size: Size(width: 130, height: 40))
        await inspector.press(.character("!"), .character("e"), .character("r"))
        let mac = try inspector.device("Mac")
        let before = try mac.engine.record(RecordID(recordName: "lagging", zoneID: notesZone))
        #expect(before == nil)
        try await saveOnIPhone(inspector, "lagging", advance: 1_000)
        // The Mac was told, fetched at once, and did not see it yet.
        #expect(try mac.engine.record(RecordID(recordName: "lagging", zoneID: notesZone)) == nil)
        // Every device fetched on the push and met the lag; the log's latest lines show it, in the warning style.
        let log = try eventLog(inspector)
        let index = try #require(
            log.lastIndex { $0.contains(": read lag: changes of the last 3000 ms not shown yet (injected on changes/database)") },
            "\(log.joined(separator: "\n"))")
        let rect = try #require(inspector.state.layout.events).inset(by: 1)
        #expect(inspector.frame()[x: rect.x + 9, y: rect.y + index].style == Theme.monochrome.warning)
    }

    @Test func aReorderedPushIsMarkedInThePushFeed() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        inspector.simulation.addFaults(FaultPlan([FaultRule(.pushReorder, match: FaultMatch(device: "Mac"), frequency: FaultFrequency(times: 1))]))
        try await saveOnIPhone(inspector, "held-back", advance: 1_000)
        try await saveOnIPhone(inspector, "overtaking", advance: 1_000)
        await inspector.settle()
        try await inspector.focus("Mac")
        let rows = inspector.pane(.notifications).dropFirst().dropLast()
        #expect(rows.filter { $0.contains("reordered") }.count == 1, "\(rows.joined(separator: "\n"))")
    }
}
