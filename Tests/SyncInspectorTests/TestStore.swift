import SyncCore
import SyncClient
import SyncWorlds
import Testing
@testable import SyncInspector

/// The update step alone, after The Composable Architecture's `TestStore`:
/// send a message, say how the state must change and which effects it must
/// ask for; the whole new state and the effects are compared. No world, no
/// terminal, no simulation.
struct TestStore {
    private(set) var state: InspectorState

    init(_ state: InspectorState) {
        self.state = state
    }

    /// Sends `message`. `expected` makes the state before into the state
    /// the message must leave (`{ _ in }`: unchanged); `effects`: what it must ask for, in order.
    mutating func send(
        _ message: InspectorMsg, effects: [InspectorEffect] = [], sourceLocation: SourceLocation = #_sourceLocation,
        _ expected: (inout InspectorState) -> Void
    ) {
        var expectedState = state
        expected(&expectedState)
        let asked = InspectorReducer.reduce(&state, message)
        #expect(asked == effects, "effects", sourceLocation: sourceLocation)
        if state != expectedState {
            Issue.record(Comment(rawValue: "state differs in: " + Self.differences(state, expectedState).joined(separator: "; ")), sourceLocation: sourceLocation)
        }
    }

    /// Brings the store to a state a test starts from, without asserting
    /// (each of these messages is asserted on its own in another test).
    /// Returns the effects it asked for, for a test that drives a loop.
    @discardableResult
    mutating func prepare(_ message: InspectorMsg) -> [InspectorEffect] {
        InspectorReducer.reduce(&state, message)
    }

    /// The fields of the state that differ, with both values (the first level, then inside the snapshot).
    static func differences(_ actual: InspectorState, _ expected: InspectorState) -> [String] {
        func fields(_ value: Any) -> [(String, String)] {
            Mirror(reflecting: value).children.map { ($0.label ?? "?", String(describing: $0.value)) }
        }
        var out: [String] = []
        for ((name, a), (_, e)) in zip(fields(actual), fields(expected)) where a != e {
            if name == "snapshot" {
                for ((inner, a), (_, e)) in zip(fields(actual.snapshot), fields(expected.snapshot)) where a != e {
                    out.append("snapshot.\(inner): got \(a.prefix(300)), expected \(e.prefix(300))")
                }
            } else {
                out.append("\(name): got \(a.prefix(300)), expected \(e.prefix(300))")
            }
        }
        return out
    }
}

// MARK: - Hand-built worlds

/// A small world, by hand: alice's iPhone and Mac, her Notes zone with two
/// records on the server, tokens and nothing on their way.
enum HandBuiltWorld {
    static let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
    static let notesKey = ZoneKey(scope: .private, zoneID: notes)
    static let defaultKey = ZoneKey(scope: .private, zoneID: .defaultZone(ownerName: "alice"))
    static let publicKey = ZoneKey(scope: .public, zoneID: .defaultZone(ownerName: "alice"))

    static func device(_ name: String, online: Bool = true) -> DeviceSummary {
        DeviceSummary(
            name: name, user: "alice", deviceID: "alice-\(name)", isOnline: online, autoFetchOnPush: true, pendingChanges: 0,
            fetchRuns: 1, lastError: nil)
    }

    static func zones(notesRecords: Int = 2) -> [ZoneListItem] {
        [
            .header(.private),
            .zone(ZoneEntry(
                scope: .private, zoneID: notes, recordCount: notesRecords, lastSequence: 4, serverToken: nil, deviceToken: nil,
                state: .notFetched(notesRecords))),
            .zone(ZoneEntry(
                scope: .private, zoneID: defaultKey.zoneID, recordCount: 0, lastSequence: nil, serverToken: nil, deviceToken: nil,
                state: .noChangeFetching)),
            .header(.shared),
            .header(.public),
            .zone(ZoneEntry(
                scope: .public, zoneID: publicKey.zoneID, recordCount: 0, lastSequence: nil, serverToken: nil, deviceToken: nil,
                state: .noChangeFetching)),
        ]
    }

    static func record(_ name: String, title: String) -> Record {
        var record = Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note")
        record["title"] = .string(title)
        return record
    }

    /// The world after a read for `focused`: its zones, and its copy of Notes (empty: it has not fetched).
    static func snapshot(focused: String = "iPhone", now: Milliseconds = 5_000, real: Milliseconds = 0) -> WorldSnapshot {
        WorldSnapshot(
            devices: [device("iPhone"), device("Mac")], events: [], eventCount: 3, writer: nil,
            time: WorldTime(now: now, nextEvent: nil, real: real), lesson: nil,
            focused: FocusedDeviceSnapshot(
                device: focused, zones: zones(), records: RecordRowsDeviceCopy(zone: notesKey, all: [], pending: [])))
    }

    /// What the server answered for Notes: everything, two records.
    static func reading() -> ServerReading {
        var reading = ServerReading()
        reading.records = ServerReading.RecordRowsReading(
            source: RecordRowsModel.Source(zone: notesKey, device: "iPhone"),
            answers: [.everything: .everything(ZoneRecordsAtPosition(
                records: [record("note-1", title: "Milk"), record("note-2", title: "Eggs")], position: nil))])
        return reading
    }

    /// A fresh state, laid out for 80×24, the clock paused at 5 s.
    static func state(paused: Bool = true, live: Bool = false) -> InspectorState {
        var state = InspectorState(clock: ClockStatus(now: 5_000, isPaused: paused, speed: 1), screenSize: Size(width: 80, height: 24))
        if live {
            state.clock.isLive = true
            state.timeline = .live(.init())
        }
        return state
    }
}
