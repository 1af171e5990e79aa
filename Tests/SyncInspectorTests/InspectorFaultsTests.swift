import SyncCore
import SyncServer
import SyncSimulation
import Testing
@testable import SyncInspector

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
        inspector.refresh()
        let descriptions = inspector.simulation.events.map(\.description)
        #expect(descriptions.contains { $0.contains("THROTTLED, retry in 3 s (retryAfter), attempt 1") }, "\(descriptions.suffix(10))")
        #expect(descriptions.contains { $0.contains("injected throttled on records/modify") })
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
}
