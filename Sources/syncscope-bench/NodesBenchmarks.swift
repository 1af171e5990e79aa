import Foundation
import Logging
import Synchronization
import SyncCore
import SyncWire
import SyncNetwork
import SyncPostgres
import SyncServerHTTP

/// `bench --http --nodes N --store postgres://…`: for 1 … N nodes, that many
/// `syncscope serve --store` processes (the `syncscope` of the same build, each on its own
/// loopback port, started fresh for each count) on one PostgreSQL database:
/// saves/s and `changes/zone` records/s with the load spread over the
/// nodes, and push latency from a save on node 1 to a long-poll on the last
/// node (coalescing window 0). Beside them, in the same run, the same saves
/// against one node keeping its journal in SQLite (in this process), and the ratio.
///
/// Nodes are processes of their own so that the CPU each one uses can be
/// told apart: during the read phase the bench reports, beside the machine's
/// core count, the CPU time of each node, of the load generator (this
/// process) and of the whole machine. Nodes, PostgreSQL and the load
/// generator share the machine's cores: with fewer cores than nodes + 1 the
/// read-scaling ratio is bounded by the cores and the bench says so instead
/// of judging it against the goal. Each node's journal counters (calls per
/// commit, rows read back, tail reads) come from its stop line.
struct NodesBenchmarks {
    var store: PostgresStoreURL
    var nodes: Int
    var clients: Int
    var saves: Int
    var changesRecords: Int
    var pushSamples: Int
    var timeLimit: Double = 10

    let container = "iCloud.com.example.SyncScopeBench"

    /// The figures, and sentences to print after them.
    struct Outcome {
        var figures: [BenchmarkFigure]
        var notes: [String]
    }

    func run() async throws -> Outcome {
        _ = try await PostgresJournalStore.migrate(store)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var notes: [String] = []
        let setup = try await NodeProcess.start(store: store)
        let token = setup.token
        let service = HTTPCloudService(baseURL: url(setup.port), webAuthToken: token, userRecordName: "bench", container: container)
        if setup.banner.contains("settings") {
            _ = await setup.stop()
            throw BenchmarkError("the database \(store) was made with other settings; bench needs a new, empty database (coalescing window 0).")
        }
        let saveZone = RecordZoneID(zoneName: "NodesSaves-\(UInt32.random(in: 0...UInt32.max))", ownerName: "bench")
        let changesZone = RecordZoneID(zoneName: "NodesChanges-\(UInt32.random(in: 0...UInt32.max))", ownerName: "bench")
        let bodies: [[UInt8]]
        let perPage: Double
        do {
            for result in try await service.modifyRecordZones(in: .private, saving: [saveZone, changesZone], deleting: []) { _ = try result.get() }
            (bodies, perPage) = try await fillAndWalk(zone: changesZone, port: setup.port, token: token, service: service)
        } catch {
            _ = await setup.stop()
            throw error
        }
        _ = await setup.stop()

        // The SQLite store, same load, same run.
        let sqlite = try await InProcessHTTPServer.start()
        let sqliteService = HTTPCloudService(baseURL: sqlite.url, webAuthToken: sqlite.token, userRecordName: sqlite.user, container: container)
        let sqliteZone = RecordZoneID(zoneName: saveZone.zoneName, ownerName: sqlite.user)
        for result in try await sqliteService.modifyRecordZones(in: .private, saving: [sqliteZone], deleting: []) { _ = try result.get() }
        let sqliteSaves = try await measureSaves(ports: [sqlite.url.port ?? 0], connections: clients, token: sqlite.token, zone: sqliteZone, tag: "sqlite")
        sqlite.task.cancel()
        try? FileManager.default.removeItem(at: InProcessHTTPServer.dataDirectory)

        var figures: [BenchmarkFigure] = [
            BenchmarkFigure(key: "cores", label: "cores on this machine (nodes, PostgreSQL, load share them)", value: Double(cores), unit: "", goal: nil)
        ]
        var savesPerCount: [Double] = []
        var readsPerCount: [Double] = []
        for count in 1...nodes {
            var started: [NodeProcess] = []
            let counters: [String]
            do {
                for _ in 0..<count { started.append(try await NodeProcess.start(store: store)) }
                let ports = started.map(\.port)
                // Each figure starts with every node caught up (a read catches up to the journal's tail):
                // it measures its own load, not the previous one's replication.
                try await catchUp(started)
                let saved = try await measureSaves(ports: ports, connections: clients, token: token, zone: saveZone, tag: "n\(count)")
                var savedEach: Double?
                if count > 1 {
                    try await catchUp(started)
                    savedEach = try await measureSaves(ports: ports, connections: clients * count, token: token, zone: saveZone, tag: "e\(count)")
                }
                try await catchUp(started)
                let before = CPUSample(nodes: started)
                let read = try await measureLoad(ports: ports, connections: clients, requests: max(bodies.count * 2, 600)) { _, connection, index in
                    bodies[(connection * 37 + index) % bodies.count]
                }
                let used = CPUSample(nodes: started).since(before)
                savesPerCount.append(saved)
                readsPerCount.append(read * perPage)
                try await catchUp(started)
                let push = try await measurePush(writerPort: started[0].port, listenerPort: started[count - 1].port, token: token, zone: saveZone)
                let across = count > 1 ? "node 1 → node \(count)" : "one node"
                let nodesLabel = "\(count) node\(count == 1 ? "" : "s")"
                figures += [
                    BenchmarkFigure(key: "pg_nodes\(count)_saves_per_s", label: "PostgreSQL, \(nodesLabel): saves over HTTP, \(clients) connections", value: saved, unit: "saves/s", goal: nil)
                ]
                if let savedEach {
                    figures.append(BenchmarkFigure(
                        key: "pg_nodes\(count)_saves_per_s_each", label: "  saves, \(clients) connections to each node", value: savedEach, unit: "saves/s", goal: nil))
                }
                figures += [
                    BenchmarkFigure(
                        key: "pg_nodes\(count)_zone_changes_records_per_s", label: "  changes/zone pages of \(Int(perPage.rounded())), \(BenchmarkResults.grouped(changesRecords))-record zone",
                        value: read * perPage, unit: "rec/s", goal: nil),
                ]
                for (index, seconds) in used.nodes.enumerated() {
                    figures.append(BenchmarkFigure(
                        key: "pg_nodes\(count)_read_cpu_node\(index + 1)", label: "    CPU of node \(index + 1) while reading", value: seconds / used.wall, unit: "cores", goal: nil))
                }
                figures += [
                    BenchmarkFigure(key: "pg_nodes\(count)_read_cpu_client", label: "    CPU of the load generator (this process)", value: used.client / used.wall, unit: "cores", goal: nil),
                    BenchmarkFigure(
                        key: "pg_nodes\(count)_read_cpu_machine", label: "    CPU of the machine (PostgreSQL, others too)", value: used.machine / used.wall, unit: "cores", goal: nil),
                    BenchmarkFigure(
                        key: "pg_nodes\(count)_push_p50_ms", label: "  push \(across): save sent → long-poll answered, p50 (\(push.count))",
                        value: HTTPBenchmarkSuite.percentile(push, 0.5), unit: "ms", goal: count > 1 ? .atMost(20) : nil),
                    BenchmarkFigure(key: "pg_nodes\(count)_push_p99_ms", label: "  p99", value: HTTPBenchmarkSuite.percentile(push, 0.99), unit: "ms", goal: nil),
                ]
            } catch {
                for node in started { _ = await node.stop() }
                throw error
            }
            var lines: [String] = []
            for node in started { lines.append(await node.stop()) }
            counters = lines
            for (index, line) in counters.enumerated() { notes.append("\(count) node\(count == 1 ? "" : "s"), node \(index + 1): \(line)") }
        }
        figures += [
            BenchmarkFigure(key: "sqlite_saves_per_s", label: "SQLite, one node: saves over HTTP, same load, same run", value: sqliteSaves, unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "sqlite_vs_pg_saves_ratio", label: "  SQLite saves / PostgreSQL one node's", value: sqliteSaves / savesPerCount[0], unit: "×", goal: .atMost(3)),
        ]
        if nodes > 1 {
            let bounded = cores < nodes + 1
            figures.append(BenchmarkFigure(
                key: "pg_reads_scaling",
                label: "changes/zone records/s, \(nodes) nodes / one node\(bounded ? " (core-bound)" : "")",
                value: readsPerCount[nodes - 1] / readsPerCount[0], unit: "×", goal: nodes >= 3 && !bounded ? .atLeast(2) : nil))
            if bounded {
                notes.append(
                    "This machine has \(cores) core\(cores == 1 ? "" : "s") for \(nodes) nodes, PostgreSQL and the load generator: the read-scaling figure is bounded by the cores, not by the nodes, and says nothing about the goal (3 nodes ≥ 2× one node's records/s needs at least \(nodes + 1) cores). The CPU figures above show where the cores went.")
            }
        }
        notes.append(
            "Saves with \(clients) connections in all: each connection waits for its answer, and appends from different nodes take turns on the journal's counter row through PostgreSQL's commit (its WAL flush), so \(clients) connections split over N nodes make commits of about \(clients)/N saves each; the \"connections to each node\" figure keeps \(clients) on every node.")
        return Outcome(figures: figures, notes: notes)
    }

    private func url(_ port: Int) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A read on each node: a read first catches up to the journal's tail.
    private func catchUp(_ nodes: [NodeProcess]) async throws {
        for node in nodes {
            _ = try await HTTPCloudService(baseURL: url(node.port), webAuthToken: node.token, userRecordName: "bench", container: container).listRecordZones(in: .private)
        }
    }

    private func databasePath(_ operation: String) -> String { "/database/1/\(container)/development/private/\(operation)" }

    /// Single-record saves from `connections` connections spread over `ports`; returns saves/s.
    private func measureSaves(ports: [Int], connections: Int, token: String, zone: RecordZoneID, tag: String) async throws -> Double {
        let zoneJSON = #"{"zoneName":"\#(zone.zoneName)","ownerRecordName":"\#(zone.ownerName)"}"#
        let path = databasePath("records/modify")
        return try await measureLoad(ports: ports, connections: connections, requests: saves) { port, connection, index in
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(tag)-p\#(port)-c\#(connection)-\#(index)","recordType":"Item","fields":{"a":{"type":"STRING","value":"alpha\#(index % 97)"},"n":{"type":"INT64","value":\#(index)}}}}],"zoneID":\#(zoneJSON)}"#
            return LeanHTTPLoad.requestBytes(path: path, token: token, body: Array(body.utf8))
        }
    }

    /// Requests on every port at once, the connections and requests split
    /// evenly; returns completed requests per second (over the slowest port's time).
    private func measureLoad(
        ports: [Int], connections total: Int, requests: Int, _ request: @escaping @Sendable (_ port: Int, _ connection: Int, _ index: Int) -> [UInt8]
    ) async throws -> Double {
        let connections = max(1, total / ports.count)
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
