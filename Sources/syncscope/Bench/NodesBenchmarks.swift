import Foundation
import Logging
import SyncCore
import SyncNetwork
import SyncPostgres
import SyncServerHTTP

/// `bench --http --nodes N --store postgres://…`: several `serve` nodes in
/// this process, each on its own loopback port, on one PostgreSQL database;
/// for 1 … N nodes: saves/s and `changes/zone` records/s with the load
/// spread over the nodes, and push latency from a save on node 1 to a
/// long-poll on another node (coalescing window 0). Beside them, in the same
/// run, the same saves against one node keeping its journal in SQLite, and the ratio.
struct NodesBenchmarks {
    var store: PostgresStoreURL
    var nodes: Int
    var clients: Int
    var saves: Int
    var changesRecords: Int
    var pushSamples: Int
    var timeLimit: Double = 10

    let container = "iCloud.com.example.SyncScopeBench"

    struct Node {
        var host: ServerHost
        var port: Int
        var task: Task<Void, any Error>
    }

    func run() async throws -> [BenchmarkFigure] {
        _ = try await PostgresJournalStore.migrate(store)
        var started: [Node] = []
        defer {
            for node in started {
                node.task.cancel()
                node.host.stop()
            }
        }
        for _ in 0..<nodes {
            let host = try await ServerHost.start(
                options: ServeOptions(host: "127.0.0.1", port: 0, dataDirectory: nil, users: ["bench"], coalescingWindow: 0, quiet: true), store: store)
            started.append(try await serve(host))
        }
        guard let account = started[0].host.users.first(where: { $0.name == "bench" }) else { throw BenchmarkError("the bench user is missing") }
        if started[0].host.startupReport.contains("settings") {
            throw BenchmarkError("the database \(store) was made with other settings (\(started[0].host.startupReport)); bench needs a new, empty database (coalescing window 0).")
        }
        let token = account.webAuthToken
        let service = HTTPCloudService(baseURL: url(started[0].port), webAuthToken: token, userRecordName: "bench", container: container)
        let saveZone = RecordZoneID(zoneName: "NodesSaves-\(UInt32.random(in: 0...UInt32.max))", ownerName: "bench")
        let changesZone = RecordZoneID(zoneName: "NodesChanges-\(UInt32.random(in: 0...UInt32.max))", ownerName: "bench")
        for result in try await service.modifyRecordZones(in: .private, saving: [saveZone, changesZone], deleting: []) { _ = try result.get() }

        // The SQLite store, same load, same run.
        let sqlite = try await InProcessHTTPServer.start()
        let sqliteService = HTTPCloudService(baseURL: sqlite.url, webAuthToken: sqlite.token, userRecordName: sqlite.user, container: container)
        let sqliteZone = RecordZoneID(zoneName: saveZone.zoneName, ownerName: sqlite.user)
        for result in try await sqliteService.modifyRecordZones(in: .private, saving: [sqliteZone], deleting: []) { _ = try result.get() }
        let sqliteSaves = try await measureSaves(ports: [sqlite.url.port ?? 0], token: sqlite.token, zone: sqliteZone, tag: "sqlite")
        sqlite.task.cancel()
        try? FileManager.default.removeItem(at: InProcessHTTPServer.dataDirectory)

        var figures: [BenchmarkFigure] = []
        var savesPerCount: [Double] = []
        var readsPerCount: [Double] = []
        let (bodies, perPage) = try await fillAndWalk(zone: changesZone, port: started[0].port, token: token, service: service)
        for count in 1...nodes {
            let ports = started.prefix(count).map(\.port)
            // Each figure starts with every node caught up: it measures its own load, not the previous one's replication.
            for node in started { try await node.host.catchUp() }
            let saved = try await measureSaves(ports: ports, token: token, zone: saveZone, tag: "n\(count)")
            for node in started { try await node.host.catchUp() }
            let read = try await measureLoad(ports: ports, requests: max(bodies.count * 2, 600)) { _, connection, index in bodies[(connection * 37 + index) % bodies.count] }
            savesPerCount.append(saved)
            readsPerCount.append(read * perPage)
            for node in started { try await node.host.catchUp() }
            let push = try await measurePush(writerPort: started[0].port, listenerPort: started[count - 1].port, token: token, zone: saveZone)
            let across = count > 1 ? "node 1 → node \(count)" : "one node"
            figures += [
                BenchmarkFigure(key: "pg_nodes\(count)_saves_per_s", label: "PostgreSQL, \(count) node\(count == 1 ? "" : "s"): saves over HTTP, \(clients) connections", value: saved, unit: "saves/s", goal: nil),
                BenchmarkFigure(
                    key: "pg_nodes\(count)_zone_changes_records_per_s", label: "  changes/zone pages of \(Int(perPage.rounded())), \(BenchmarkResults.grouped(changesRecords))-record zone",
                    value: read * perPage, unit: "rec/s", goal: nil),
                BenchmarkFigure(
                    key: "pg_nodes\(count)_push_p50_ms", label: "  push \(across): save sent → long-poll answered, p50 (\(push.count))",
                    value: HTTPBenchmarkSuite.percentile(push, 0.5), unit: "ms", goal: count > 1 ? .atMost(20) : nil),
                BenchmarkFigure(key: "pg_nodes\(count)_push_p99_ms", label: "  p99", value: HTTPBenchmarkSuite.percentile(push, 0.99), unit: "ms", goal: nil),
            ]
        }
        figures += [
            BenchmarkFigure(key: "sqlite_saves_per_s", label: "SQLite, one node: saves over HTTP, same load, same run", value: sqliteSaves, unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "sqlite_vs_pg_saves_ratio", label: "  SQLite saves / PostgreSQL one node's", value: sqliteSaves / savesPerCount[0], unit: "×", goal: .atMost(3)),
        ]
        if nodes > 1 {
            figures.append(BenchmarkFigure(
                key: "pg_reads_scaling", label: "changes/zone records/s, \(nodes) nodes / one node", value: readsPerCount[nodes - 1] / readsPerCount[0], unit: "×",
                goal: nodes >= 3 ? .atLeast(2) : nil))
        }
        return figures
    }

    private func url(_ port: Int) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    private func serve(_ host: ServerHost) async throws -> Node {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let logger = Logging.Logger(label: "bench")
        let task = Task { try await SyncScopeHTTPServer(host: host, logger: logger).run { port in continuation.yield(port) } }
        for await port in ports { return Node(host: host, port: port, task: task) }
        throw BenchmarkError("a node did not start")
    }

    private func databasePath(_ operation: String) -> String { "/database/1/\(container)/development/private/\(operation)" }

    /// Single-record saves from `clients` connections spread over `ports`; returns saves/s.
    private func measureSaves(ports: [Int], token: String, zone: RecordZoneID, tag: String) async throws -> Double {
        let zoneJSON = #"{"zoneName":"\#(zone.zoneName)","ownerRecordName":"\#(zone.ownerName)"}"#
        let path = databasePath("records/modify")
        return try await measureLoad(ports: ports, requests: saves) { port, connection, index in
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(tag)-p\#(port)-c\#(connection)-\#(index)","recordType":"Item","fields":{"a":{"type":"STRING","value":"alpha\#(index % 97)"},"n":{"type":"INT64","value":\#(index)}}}}],"zoneID":\#(zoneJSON)}"#
            return LeanHTTPLoad.requestBytes(path: path, token: token, body: Array(body.utf8))
        }
    }

    /// Requests on every port at once, the connections and requests split
    /// evenly; returns completed requests per second (over the slowest port's time).
    private func measureLoad(
        ports: [Int], requests: Int, _ request: @escaping @Sendable (_ port: Int, _ connection: Int, _ index: Int) -> [UInt8]
    ) async throws -> Double {
        let connections = max(1, clients / ports.count)
        let each = max(connections, requests / ports.count)
        let limit = timeLimit
        let reports = try await withThrowingTaskGroup(of: LeanHTTPLoad.Report.self) { group in
            for port in ports {
                group.addTask {
                    try await LeanHTTPLoad(
                        port: port, connections: connections, requests: each, timeLimit: limit,
                        request: { connection, index in request(port, connection, index) }
                    ).run()
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for report in reports where report.failures > 0 { throw BenchmarkError("\(report.failures) requests failed: \(report.firstFailure ?? "")") }
        let seconds = reports.map(\.seconds).max() ?? 1
        return Double(reports.map(\.completed).reduce(0, +)) / seconds
    }

    /// Fills the zone (400 records a request) and walks it once: the request
    /// bytes of every page's `changes/zone`, and the records per page.
    private func fillAndWalk(zone: RecordZoneID, port: Int, token: String, service: HTTPCloudService) async throws -> ([[UInt8]], Double) {
        let zoneJSON = #"{"zoneName":"\#(zone.zoneName)","ownerRecordName":"\#(zone.ownerName)"}"#
        let batches = (changesRecords + 399) / 400
        let path = databasePath("records/modify")
        let fill = try await LeanHTTPLoad(
            port: port, connections: 2, requests: batches + batches % 2, timeLimit: 600,
            request: { connection, index in
                let batch = index * 2 + connection
                let operations = (0..<400).map { (i: Int) -> String in
                    let n = batch * 400 + i
                    return #"{"operationType":"create","record":{"recordName":"z\#(n)","recordType":"Item","fields":{"title":{"type":"STRING","value":"Note number \#(n)"},"n":{"type":"INT64","value":\#(n)}}}}"#
                }.joined(separator: ",")
                let body = #"{"operations":[\#(operations)],"zoneID":\#(zoneJSON),"atomic":false}"#
                return LeanHTTPLoad.requestBytes(path: path, token: token, body: Array(body.utf8))
            }
        ).run()
        guard fill.failures == 0 else { throw BenchmarkError("filling the zone failed: \(fill.firstFailure ?? "")") }
        var pageTokens: [ServerChangeToken?] = []
        var pageToken: ServerChangeToken?
        var records = 0
        for _ in 0..<(batches * 2 + 10) {
            let batch = try await service.fetchRecordZoneChanges(
                in: .private, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: pageToken, resultsLimit: 400)])[0].get()
            pageTokens.append(pageToken)
            records += batch.changes.count
            pageToken = batch.serverChangeToken
            if !batch.moreComing { break }
        }
        let bodies: [[UInt8]] = try pageTokens.map { pageToken in
            let request = WireZoneChangesRequest(zones: [.init(zoneID: WireZoneID(zone), syncToken: pageToken, resultsLimit: 400)])
            return LeanHTTPLoad.requestBytes(path: databasePath("changes/zone"), token: token, body: Array(try WireJSON.encode(request)))
        }
        return (bodies, Double(records) / Double(max(1, pageTokens.count)))
    }

    /// Milliseconds from sending a save to node `writerPort` to a long-poll on
    /// node `listenerPort` answering with its notification.
    private func measurePush(writerPort: Int, listenerPort: Int, token: String, zone: RecordZoneID) async throws -> [Double] {
        let listener = try await HTTPCloudService(baseURL: url(listenerPort), webAuthToken: token, userRecordName: "bench", container: container).withNewDevice()
        let writer = HTTPCloudService(baseURL: url(writerPort), webAuthToken: token, userRecordName: "bench", deviceID: "bench-push-writer", container: container)
        return try await PushLatencySampling.measure(
            listener: listener, writer: writer, zone: zone, subscriptionID: "nodes-\(UInt32.random(in: 0...UInt32.max))",
            recordPrefix: "push-\(listenerPort)-", samples: pushSamples, timeLimit: timeLimit)
    }
}
