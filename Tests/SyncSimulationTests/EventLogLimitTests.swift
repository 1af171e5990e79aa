import SyncCore
import SyncSimulation
import SyncWorlds
import Testing

/// A world keeps its last `eventLimit` events, in order, however many
/// happened; logging one costs the same however many are kept (the dropped
/// ones go in chunks, not one shift of the whole log per event).
@Suite struct EventLogLimitTests {
    func world(limit: Int) throws -> Simulation {
        try Simulation(setup: SimulationSetup(seed: 1, users: ["alice"], devices: [.init(name: "iPhone", user: "alice")], eventLimit: limit))
    }

    func texts(_ events: some Sequence<WorldEvent>) -> [String] {
        events.map { event in
            guard case .action(let text) = event.kind else { return "not a note: \(event)" }
            return text
        }
    }

    @Test func theLastEventsAreKeptInOrderAcrossEveryTrim() throws {
        let simulation = try world(limit: 3)
        let before = simulation.eventCount
        for n in 1...10 {
            simulation.note("note \(n)")
            let kept = texts(simulation.events)
            let expected = (max(1, n - 2)...n).map { "note \($0)" }
            #expect(kept.suffix(expected.count) == expected[...], "after \(n) notes: \(kept)")
            #expect(simulation.events.count <= 3)
            #expect(simulation.events.map(\.number) == Array((simulation.eventCount - simulation.events.count + 1)...simulation.eventCount))
        }
        #expect(simulation.eventCount == before + 10)
        #expect(texts(simulation.events) == ["note 8", "note 9", "note 10"])
    }

    @Test func recentEventsAreTheTailOfEvents() throws {
        let simulation = try world(limit: 4)
        for n in 1...9 { simulation.note("note \(n)") }
        #expect(texts(simulation.recentEvents(2)) == ["note 8", "note 9"])
        #expect(texts(simulation.recentEvents(4)) == texts(simulation.events))
        #expect(texts(simulation.recentEvents(100)) == ["note 6", "note 7", "note 8", "note 9"], "never more than are kept")
        #expect(simulation.recentEvents(0).isEmpty)
    }
}
