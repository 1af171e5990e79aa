import Foundation
import Logging
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// What `serve`'s event feed costs the save path, in the same run: four
/// servers in this process on data folders of their own, each measured
/// against itself — one with nobody watching, one with a watcher
/// long-polling every event with its bodies, one with a watcher that also
/// decodes every page, and a control. Each takes single-record saves in
/// passes, its feed's recording switched in turn, every
/// ``phases``-th of a pass's saves, between paused (what a request costs
/// with `--event-feed 0`) and on; a server's figure is its saves per second
/// while recording over its saves per second while paused, over every phase
/// of every pass (the first phase of a pass, a warm-up, not counted). The
/// control never records: its ratio is how finely the run can tell.
///
/// Why this way: the machine's speed drifts by more than the 2% measured,
/// within seconds, and two servers differ by as much (where each one's
/// memory and threads landed); phases a fifth of a second long, on the same
/// server, under the same load, leave neither in the ratio. The servers
/// take no checkpoints here: one lands in whichever phase it falls in.
/// Each pass starts from rest: once a watched server's pass ends, its
/// watcher reads what it has left (how much that was is printed). The
/// watchers must have read every event, none dropped by the ring, or the
/// bench fails.
struct FeedCostBenchmarks {
    var clients: Int
    var saves: Int
    var timeLimit: Double
    /// Passes over the four servers (the order reversed every other pass):
    /// six, not three, halve the variance the phases' own noise leaves in a figure
    /// (the control moved by about ±1.5% with three, ±1% with six).
    static let passes = 6
    /// Phases a pass is cut into, paused and recording in turn.
    static let phases = 40
    let container = "iCloud.com.example.SyncScopeBench"

    struct Server {
        var host: ServerHost
        var port: Int
        var token: String
        var task: Task<Void, any Error>
        var directory: URL
    }

    func start(feed: Int) async throws -> Server {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-bench-feed-\(getpid())-\(UUID().uuidString)")
        var options = ServeOptions(host: "127.0.0.1", port: 0, dataDirectory: directory, users: ["bench"], coalescingWindow: 0, quiet: true)
        options.eventFeedSize = feed
        options.checkpointEvery = .max
        let host = try await ServerHost.start(options: options)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await SyncScopeHTTPServer(host: host, logger: Logger(label: "bench")).run { port in continuation.yield(port) } }
        var port: Int?
        for await found in ports {
            port = found
            break
        }
        guard let port, let account = host.users.first else { throw BenchmarkError("a feed benchmark server did not start") }
        let service = HTTPCloudService(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, webAuthToken: account.webAuthToken, userRecordName: account.name, container: container)
        for result in try await service.modifyRecordZones(in: .private, saving: [RecordZoneID(zoneName: "Feed", ownerName: account.name)], deleting: []) {
            _ = try result.get()
        }
        return Server(host: host, port: port, token: account.webAuthToken, task: task, directory: directory)
    }

    /// Saves and seconds in the phases of one kind (paused, or recording).
    struct PhaseTotals {
        var saves = 0
        var seconds = 0.0
        var perSecond: Double { seconds > 0 ? Double(saves) / seconds : 0 }

        static func + (a: PhaseTotals, b: PhaseTotals) -> PhaseTotals {
            PhaseTotals(saves: a.saves + b.saves, seconds: a.seconds + b.seconds)
        }
    }

    /// Switches a server's recording at the end of every phase, on the load's
    /// thread, and adds each phase's saves and time to its kind's totals.
    final class PhaseSwitch: Sendable {
        struct State {
            var phase = 0
            var last = ContinuousClock.now
            /// Paused phases' totals, then recording ones'.
            var totals = [PhaseTotals(), PhaseTotals()]
        }
        let state = Mutex(State())
        let feed: ServerEventFeed
        let records: Bool
        let perPhase: Int

        init(feed: ServerEventFeed, records: Bool, perPhase: Int) {
            self.feed = feed
            self.records = records
            self.perPhase = perPhase
            feed.setRecording(false)
        }

        /// Phase 0 (paused) warms up; odd phases record (when ``records``).
        func phaseEnded() {
            let now = ContinuousClock.now
            state.withLock { state in
                if state.phase > 0 {
                    state.totals[state.phase % 2].saves += perPhase
                    state.totals[state.phase % 2].seconds += now.seconds(since: state.last)
                }
                state.last = now
                state.phase += 1
                feed.setRecording(records && state.phase % 2 == 1)
            }
        }

        var totals: (paused: PhaseTotals, recording: PhaseTotals) { state.withLock { ($0.totals[0], $0.totals[1]) } }
    }

    /// One pass of saves on `server`, its recording switched every phase;
    /// `records` false: it stays paused (the control).
    func pass(_ server: Server, number: Int, records: Bool) async throws -> (paused: PhaseTotals, recording: PhaseTotals) {
        let path = "/database/1/\(container)/development/private/records/modify"
        let token = server.token
        let phases = PhaseSwitch(feed: server.host.events, records: records, perPhase: max(1, saves / Self.phases))
        defer { server.host.events.setRecording(false) }
        let report = try await LeanHTTPLoad(
            port: server.port, connections: clients, requests: saves, timeLimit: timeLimit,
            every: (phases.perPhase, { phases.phaseEnded() }),
            request: { connection, index in
                let body = #"{"operations":[{"operationType":"create","record":{"recordName":"r\#(number)-c\#(connection)-\#(index)","recordType":"Item","fields":{"a":{"type":"STRING","value":"alpha\#(index % 97)"},"n":{"type":"INT64","value":\#(index)}}}}],"zoneID":{"zoneName":"Feed","ownerRecordName":"bench"}}"#
                return LeanHTTPLoad.requestBytes(path: path, token: token, body: Array(body.utf8))
            }
        ).run()
        if report.failures > 0 { throw BenchmarkError("\(report.failures) saves failed: \(report.firstFailure ?? "")") }
        return phases.totals
    }

    /// A watcher that follows the feed from its start, every event with its
    /// bodies, as soon as each page comes, until cancelled: it returns the
    /// cursor it reached and the events the ring dropped before it read them.
    /// ``lean(port:adminToken:container:)`` reads every byte of every page on a
    /// ``LeanHTTPConnection`` and finds its cursor in the page's tail, so the
    /// figure is what serving a watcher costs the server;
    /// ``decoding(_:)`` reads through `URLSession` and decodes every page, as
    /// `inspect --server` does (that is the watcher's own work, on the same two cores).
    final class Watcher: Sendable {
        let task: Task<(next: UInt64, missed: UInt64), Never>
        /// The `after` of the watcher's next poll, as it goes.
        final class Cursor: Sendable {
            let value = Atomic<UInt64>(0)
        }
        let cursor = Cursor()
        /// Why the watcher stopped reading before it was cancelled (the read's error), if it did.
        final class StopReason: Sendable {
            let value = Mutex<String?>(nil)
        }
        let stopped = StopReason()

        /// `read(after)`: the next page's `next` and `missed`; `end` runs once the watcher stops.
        init(read: @escaping @Sendable (_ after: UInt64) async throws -> (next: UInt64, missed: UInt64), end: @escaping @Sendable () async -> Void = {}) {
            let (cursor, stopped) = (self.cursor, self.stopped)
            task = Task {
                var next: UInt64 = 0
                var missed: UInt64 = 0
                while !Task.isCancelled {
                    let page: (next: UInt64, missed: UInt64)
                    do { page = try await read(next) } catch {
                        if !Task.isCancelled { stopped.value.withLock { $0 = (error as? BenchmarkError)?.message ?? "\(error)" } }
                        break
                    }
                    (next, missed) = (page.next, missed + page.missed)
                    cursor.value.store(next, ordering: .relaxed)
                }
                await end()
                return (next, missed)
            }
        }

        static func decoding(_ reader: EventFeedReader) -> Watcher {
            Watcher(read: { after in
                let page = try await reader.events(after: after, timeout: 5, limit: 1000, bodies: true)
                return (page.next, page.missed)
            })
        }

        static func lean(port: Int, adminToken: String, container: String) async throws -> Watcher {
            let connection = try await LeanHTTPConnection.connect(port: port)
            let path = "/admin/1/\(container)/development/events"
            return Watcher(read: { after in
                let request = LeanHTTPLoad.requestBytes(
                    method: "GET", path: "\(path)?after=\(after)&timeout=5&limit=1000&bodies=true", token: adminToken,
                    headers: [("X-SyncScope-Inspector", "1")], body: [])
                let last = try await connection.exchange(request)
                guard let tail = Watcher.tail(last) else {
                    throw BenchmarkError("a feed page did not end with its cursor: …\(String(decoding: last, as: UTF8.self))")
                }
                return (tail.next, tail.missed)
            }, end: { await connection.close() })
        }

        /// `missed` and `next` from a page's last bytes (`…],"missed":M,"next":N,"node":"…"}`: the keys are sorted).
        static func tail(_ bytes: [UInt8]) -> (missed: UInt64, next: UInt64)? {
            let marker = Array(#"],"missed":"#.utf8)
            guard bytes.count >= marker.count,
                  let start = (0...(bytes.count - marker.count)).last(where: { Array(bytes[$0..<$0 + marker.count]) == marker })
            else { return nil }
            let text = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
            let parts = text.split(separator: ",")
            guard parts.count >= 2, let missed = UInt64(parts[0]), parts[1].hasPrefix(#""next":"#), let next = UInt64(parts[1].dropFirst(7)) else { return nil }
            return (missed, next)
        }

        /// Waits (with a deadline) until the watcher has read through `sequence`.
        func catchUp(through sequence: UInt64) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while cursor.value.load(ordering: .relaxed) < sequence {
                if let reason = stopped.value.withLock({ $0 }) {
                    throw BenchmarkError("a feed watcher stopped reading after \(cursor.value.load(ordering: .relaxed)) of \(sequence) events: \(reason)")
                }
                guard ContinuousClock.now < deadline else { throw BenchmarkError("a feed watcher fell behind: it read through \(cursor.value.load(ordering: .relaxed)) of \(sequence) events") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// Waits until the watcher has read through `sequence`; then stops it and answers the events it missed.
        func finish(through sequence: UInt64) async throws -> UInt64 {
            try await catchUp(through: sequence)
            task.cancel()
            return await task.value.missed
        }
    }

    func run() async throws -> [BenchmarkFigure] {
        let control = try await start(feed: 10_000)
        let idle = try await start(feed: 10_000)
        let watched = try await start(feed: 10_000)
        let decoded = try await start(feed: 10_000)
        let reader = EventFeedReader(baseURL: URL(string: "http://127.0.0.1:\(decoded.port)")!, adminToken: decoded.host.adminToken, container: container)
        let watcher = try await Watcher.lean(port: watched.port, adminToken: watched.host.adminToken, container: container)
        let decoder = Watcher.decoding(reader)
        let servers = [control, idle, watched, decoded]
        defer {
            watcher.task.cancel()
            decoder.task.cancel()
            for server in servers {
                server.task.cancel()
                try? FileManager.default.removeItem(at: server.directory)
            }
        }
        let followers = [2: watcher, 3: decoder]
        var totals = Array(repeating: (paused: PhaseTotals(), recording: PhaseTotals()), count: servers.count)
        var watcherBacklog: [Double] = []
        // Its zone's creation is the control's one event.
        let controlEvents = control.host.events.newest
        for number in 0..<Self.passes {
            for which in number % 2 == 0 ? Array(servers.indices) : servers.indices.reversed() {
                let server = servers[which]
                let pass = try await pass(server, number: number, records: which != 0)
                totals[which] = (totals[which].paused + pass.paused, totals[which].recording + pass.recording)
                // Each pass starts from rest: a watcher still reading its server's
                // last events would take the next pass's cores.
                if let follower = followers[which] {
                    let newest = server.host.events.newest
                    if follower === watcher { watcherBacklog.append(Double(newest - min(newest, follower.cursor.value.load(ordering: .relaxed)))) }
                    try await follower.catchUp(through: newest)
                }
            }
        }
        // Both watchers read every event: none fell off the ring while the saves ran.
        for (server, follower) in [(watched, watcher), (decoded, decoder)] {
            let missed = try await follower.finish(through: server.host.events.newest)
            if missed > 0 { throw BenchmarkError("a feed watcher missed \(missed) events: the ring dropped them before it read them") }
        }
        if control.host.events.newest != controlEvents { throw BenchmarkError("the control server recorded events: its feed was to stay paused") }
        func ratio(_ which: Int) -> Double {
            let paused = totals[which].paused.perSecond
            return paused > 0 ? totals[which].recording.perSecond / paused : 0
        }
        let paused = totals.map(\.paused).reduce(PhaseTotals(), +)
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return [
            BenchmarkFigure(
                key: "http_save_feed_off_per_s", label: "saves with the event feed not recording (as --event-feed 0)", value: paused.perSecond,
                unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "http_save_feed_off_resolution", label: "  control: its phases against each other (noise)", value: ratio(0), unit: "×", goal: nil),
            BenchmarkFigure(key: "http_save_feed_idle_ratio", label: "  feed on, no watcher / feed off", value: ratio(1), unit: "×", goal: .atLeast(0.98)),
            BenchmarkFigure(
                key: "http_save_feed_watched_ratio", label: "  feed on, one watcher / feed off", value: ratio(2), unit: "×",
                goal: .atLeast(0.9)),
            BenchmarkFigure(
                key: "http_save_feed_watcher_backlog", label: "  events the watcher had yet to read at a pass's end",
                value: median(watcherBacklog), unit: "events", goal: nil),
            BenchmarkFigure(
                key: "http_save_feed_decoding_watcher_ratio", label: "  one watcher decoding too / feed off",
                value: ratio(3), unit: "×", goal: nil),
        ]
    }
}
