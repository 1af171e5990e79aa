import Foundation
import SyncCore
import SyncInspector
import SyncWire

/// The inspector on a server (`inspect --server`) holding ``events`` events
/// of one busy client, the most it keeps: what a frame costs (the client's
/// token history and traffic on screen, kept between messages), and what a
/// feed page of five more of its fetches costs the update (the client's
/// views are worked out again then, and the doctor runs over the events kept).
struct ServerWatchBenchmarks {
    var events = 5_000
    var size = Size(width: 160, height: 48)
    static let container = "iCloud.com.example.SyncScope"

    /// A `changes/zone` of zone Notes by alice's pyicloud, from the token before it.
    static func fetch(_ seq: UInt64) -> WireServerEvent {
        var event = WireServerEvent(seq: seq, time: 1_000 + Int64(seq), kind: "request")
        event.method = "POST"
        event.operation = "changes/zone"
        event.path = "/database/1/\(container)/development/private/changes/zone"
        event.user = "alice"
        event.client = "token:1"
        event.clientName = "alice · pyicloud"
        event.status = 200
        event.tokenIn = seq > 1 ? "T\(seq - 1)" : nil
        event.tokenOut = "T\(seq)"
        var asked: [String: JSONValue] = ["zoneID": .object(["zoneName": .string("Notes")])]
        if let sent = event.tokenIn { asked["syncToken"] = .string(sent) }
        event.request = .object(["zones": .array([.object(asked)])])
        event.answer = .object(["zones": .array([.object([
            "zoneID": .object(["zoneName": .string("Notes")]), "syncToken": .string("T\(seq)"), "moreComing": .bool(false),
            "records": .array([.object(["recordName": .string("note-\(seq)")])]),
        ])])])
        return event
    }

    func run() throws -> [BenchmarkFigure] {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: false, speed: 1), screenSize: size)
        state.watch.isOn = true
        state.watch.container = Self.container
        var seq: UInt64 = 0
        func page(_ count: Int) -> InspectorMsg {
            let events = (0..<count).map { _ in
                seq += 1
                return Self.fetch(seq)
            }
            return .feedRead(.success(WireServerEvents(node: "bench", events: events, next: seq, missed: 0)))
        }
        _ = ServerWatchReducer.reduce(&state, page(events))
        guard state.watch.history.count == events else {
            throw BenchmarkError("the token history holds \(state.watch.history.count) fetches, expected \(events)")
        }
        let view = InspectorView()
        var frames: [Double] = []
        var updates: [Double] = []
        for _ in 0..<11 {
            let update = ContinuousClock.now
            _ = ServerWatchReducer.reduce(&state, page(5))
            updates.append(ContinuousClock.now.seconds(since: update) * 1000)
            let frame = ContinuousClock.now
            _ = view.render(state, size: size)
            frames.append(ContinuousClock.now.seconds(since: frame) * 1000)
        }
        let n = BenchmarkResults.grouped(events)
        return [
            BenchmarkFigure(
                key: "server_watch_frame_ms", label: "server inspector frame, \(n) events of a client", value: InspectorBenchmarkSuite.median(frames),
                unit: "ms", goal: .atMost(2)),
            BenchmarkFigure(
                key: "server_watch_page_ms", label: "  a feed page taken (doctor and client's views)",
                value: InspectorBenchmarkSuite.median(updates), unit: "ms", goal: nil),
        ]
    }
}
