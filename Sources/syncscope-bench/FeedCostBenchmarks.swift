import Foundation
import Logging
import SyncCore
import SyncNetwork
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// What `serve`'s event feed costs the save path, in the same run: three
/// servers in this process on data folders of their own — the feed off
/// (`--event-feed 0`), on with nobody watching, and on with one watcher
/// long-polling it with bodies — get the same single-record saves in
/// alternating rounds (the order rotating), and each round's ratio to the
/// feed-off server is taken; the figure is the median round.
struct FeedCostBenchmarks {
    var clients: Int
    var saves: Int
    var timeLimit: Double
    static let rounds = 5
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

    func run() async throws -> [BenchmarkFigure] {
        let off = try await start(feed: 0)
        let idle = try await start(feed: 10_000)
        let watched = try await start(feed: 10_000)
        let reader = EventFeedReader(baseURL: URL(string: "http://127.0.0.1:\(watched.port)")!, adminToken: watched.host.adminToken, container: container)
        // One watcher, reading every event with its bodies as soon as it comes.
        let watcher = Task {
            var next: UInt64 = 0
            var read = 0
            while !Task.isCancelled {
                guard let page = try? await reader.events(after: next, timeout: 5, limit: 1000, bodies: true) else { break }
                next = page.next
                read += page.events.count
            }
            return read
        }
        defer {
            watcher.cancel()
            for server in [off, idle, watched] {
                server.task.cancel()
                try? FileManager.default.removeItem(at: server.directory)
            }
        }
        var idleRatios: [Double] = []
        var watchedRatios: [Double] = []
        var offRates: [Double] = []
        for round in 0..<Self.rounds {
            var rates: [Int: Double] = [:]
            // The order rotates, so no server always runs first or last.
            for step in 0..<3 {
                let which = (round + step) % 3
                rates[which] = try await saves([off, idle, watched][which], round: round)
            }
            offRates.append(rates[0] ?? 0)
            idleRatios.append((rates[1] ?? 0) / (rates[0] ?? 1))
            watchedRatios.append((rates[2] ?? 0) / (rates[0] ?? 1))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return [
            BenchmarkFigure(key: "http_save_feed_off_per_s", label: "saves with the event feed off (--event-feed 0)", value: median(offRates), unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "http_save_feed_idle_ratio", label: "  feed on, no watcher / feed off", value: median(idleRatios), unit: "×", goal: .atLeast(0.98)),
            BenchmarkFigure(key: "http_save_feed_watched_ratio", label: "  feed on, one watcher / feed off", value: median(watchedRatios), unit: "×", goal: .atLeast(0.9)),
        ]
    }
}
