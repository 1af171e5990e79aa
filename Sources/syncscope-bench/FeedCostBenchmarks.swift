import Foundation
import Logging
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// What `serve`'s event feed costs the save path, in the same run: four
/// servers in this process on data folders of their own — the feed off
/// (`--event-feed 0`), on with nobody watching, on with one watcher
/// long-polling every event with its bodies, and on with a watcher that also
/// decodes every page — get the same single-record saves in alternating
/// rounds, and each round's ratio to the feed-off servers is taken; the
/// figure is the median round. The order changes every round, so no server
/// always runs first, last, or right after the same one; and each run starts
/// from rest: once a server's saves end, its watcher reads what it has left
/// before the next server's run (how much it had left is printed). The
/// watchers must have read every event, none dropped by the ring, or the
/// bench fails.
struct FeedCostBenchmarks {
    var clients: Int
    var saves: Int
    var timeLimit: Double
    static let rounds = 7
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

    func saves(_ server: Server, round: Int) async throws -> Double {
        let path = "/database/1/\(container)/development/private/records/modify"
        let token = server.token
        let report = try await LeanHTTPLoad(
            port: server.port, connections: clients, requests: saves, timeLimit: timeLimit,
            request: { connection, index in
                let body = #"{"operations":[{"operationType":"create","record":{"recordName":"r\#(round)-c\#(connection)-\#(index)","recordType":"Item","fields":{"a":{"type":"STRING","value":"alpha\#(index % 97)"},"n":{"type":"INT64","value":\#(index)}}}}],"zoneID":{"zoneName":"Feed","ownerRecordName":"bench"}}"#
                return LeanHTTPLoad.requestBytes(path: path, token: token, body: Array(body.utf8))
            }
        ).run()
        if report.failures > 0 { throw BenchmarkError("\(report.failures) saves failed: \(report.firstFailure ?? "")") }
        return report.perSecond
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
        // Two feed-off servers, started first and last, with the feed-on ones
        // between them (the idle one in the middle): a server started earlier
        // runs a little faster here, and their mean cancels that out.
        let offFirst = try await start(feed: 0)
        let watched = try await start(feed: 10_000)
        let idle = try await start(feed: 10_000)
        let decoded = try await start(feed: 10_000)
        let offLast = try await start(feed: 0)
        func reader(_ server: Server) -> EventFeedReader {
            EventFeedReader(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, adminToken: server.host.adminToken, container: container)
        }
        let watcher = try await Watcher.lean(port: watched.port, adminToken: watched.host.adminToken, container: container)
        let decoder = Watcher.decoding(reader(decoded))
        let servers = [offFirst, idle, watched, decoded, offLast]
        defer {
            watcher.task.cancel()
            decoder.task.cancel()
            for server in servers {
                server.task.cancel()
                try? FileManager.default.removeItem(at: server.directory)
            }
        }
        let followers = [2: watcher, 3: decoder]
        var ratios: [[Double]] = Array(repeating: [], count: servers.count)
        var offRates: [Double] = []
        var watcherBacklog: [Double] = []
        for round in 0..<Self.rounds {
            var rates = [Double](repeating: 0, count: servers.count)
            // The order changes every round (a stride of 1 to 4 through five servers), so
            // no server always runs first or last, nor always right after the same one.
            let stride = 1 + round % (servers.count - 1)
            for step in 0..<servers.count {
                let which = (round + step * stride) % servers.count
                rates[which] = try await saves(servers[which], round: round)
                // Each run starts from rest: a watcher still reading its server's
                // last events would take the next server's cores.
                if let follower = followers[which] {
                    let newest = servers[which].host.events.newest
                    if follower === watcher { watcherBacklog.append(Double(newest - min(newest, follower.cursor.value.load(ordering: .relaxed)))) }
                    try await follower.catchUp(through: newest)
                }
            }
            let off = (rates[0] + rates[4]) / 2
            offRates.append(off)
            for which in servers.indices { ratios[which].append(rates[which] / off) }
            // The bench's own resolution: one feed-off server against the other.
            ratios[4][ratios[4].count - 1] = rates[4] / rates[0]
        }
        // Both watchers read every event: none fell off the ring while the saves ran.
        for (server, follower) in [(watched, watcher), (decoded, decoder)] {
            let missed = try await follower.finish(through: server.host.events.newest)
            if missed > 0 { throw BenchmarkError("a feed watcher missed \(missed) events: the ring dropped them before it read them") }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return [
            BenchmarkFigure(key: "http_save_feed_off_per_s", label: "saves with the event feed off (--event-feed 0)", value: median(offRates), unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "http_save_feed_off_resolution", label: "  one feed-off server / the other (noise)", value: median(ratios[4]), unit: "×", goal: nil),
            BenchmarkFigure(key: "http_save_feed_idle_ratio", label: "  feed on, no watcher / feed off", value: median(ratios[1]), unit: "×", goal: .atLeast(0.98)),
            BenchmarkFigure(
                key: "http_save_feed_watched_ratio", label: "  feed on, one watcher / feed off", value: median(ratios[2]), unit: "×",
                goal: .atLeast(0.9)),
            BenchmarkFigure(
                key: "http_save_feed_watcher_backlog", label: "  events the watcher had yet to read at the end",
                value: median(watcherBacklog), unit: "events", goal: nil),
            BenchmarkFigure(
                key: "http_save_feed_decoding_watcher_ratio", label: "  one watcher decoding too / feed off",
                value: median(ratios[3]), unit: "×", goal: nil),
        ]
    }
}
