import Foundation
import Logging
import Synchronization
import SyncCore
import SyncNetwork
import SyncPostgres
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// `bench --http --nodes N --store postgres://…`: for 1 … N nodes, that many
/// `syncscope serve --store` processes (this executable, each on its own
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

/// CPU time used so far, in seconds: by each node process, by this process, by the whole machine.
struct CPUSample {
    var wall: Double
    var nodes: [Double]
    var client: Double
    var machine: Double

    init(nodes: [NodeProcess]) {
        wall = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        self.nodes = nodes.map { Self.processSeconds($0.pid) }
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        client = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        machine = Self.machineBusySeconds()
    }

    private init(wall: Double, nodes: [Double], client: Double, machine: Double) {
        self.wall = wall
        self.nodes = nodes
        self.client = client
        self.machine = machine
    }

    func since(_ earlier: CPUSample) -> CPUSample {
        CPUSample(
            wall: max(wall - earlier.wall, 1e-9), nodes: zip(nodes, earlier.nodes).map { $0 - $1 }, client: client - earlier.client,
            machine: machine - earlier.machine)
    }

    static var ticksPerSecond: Double { Double(max(1, sysconf(Int32(_SC_CLK_TCK)))) }

    /// utime + stime from `/proc/PID/stat` (0 where there is no `/proc`).
    static func processSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return 0 }
        // After the command's closing parenthesis: field 3 (state) onwards; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / ticksPerSecond
    }

    /// Busy time of every core together, from `/proc/stat` (all but idle and I/O wait).
    static func machineBusySeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return 0 }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 5 else { return 0 }
        // user nice system idle iowait irq softirq steal (guest times are inside user already).
        let busy = values.prefix(8).enumerated().filter { $0.offset != 3 && $0.offset != 4 }.map(\.element).reduce(0, +)
        return busy / ticksPerSecond
    }
}

/// One `syncscope serve --store` node, a child process of the bench.
final class NodeProcess: Sendable {
    let process: Process
    let port: Int
    let token: String
    let banner: String
    private let watch: Watch

    /// What the process printed, and whether (and who waits until) it exited.
    final class Watch: Sendable {
        let output = Mutex("")
        let exited = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    }

    var pid: Int32 { process.processIdentifier }

    private init(process: Process, port: Int, token: String, banner: String, watch: Watch) {
        self.process = process
        self.port = port
        self.token = token
        self.banner = banner
        self.watch = watch
    }

    /// This executable (the bench runs the serve command it was built with).
    static var executable: URL {
        let link = "/proc/self/exe"
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: link) { return URL(fileURLWithPath: resolved) }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// Starts a node on a free loopback port and waits (bounded) for its banner.
    static func start(store: PostgresStoreURL) async throws -> NodeProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--store", store.description, "--port", "0", "--user", "bench", "--coalescing-window", "0", "--quiet"]
        var environment = ProcessInfo.processInfo.environment
        environment["SYNCSCOPE_STORE"] = nil
        if let password = store.password { environment["PGPASSWORD"] = password }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let watch = Watch()
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            watch.output.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        process.terminationHandler = { _ in
            let waiter = watch.exited.withLock { state -> CheckedContinuation<Void, Never>? in
                state.done = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
        try process.run()
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let text = watch.output.withLock { $0 }
            if text.contains("try: curl"), let port = listeningPort(text), let token = benchToken(text) {
                return NodeProcess(process: process, port: port, token: token, banner: text, watch: watch)
            }
            if watch.exited.withLock({ $0.done }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw BenchmarkError("a node did not start: \(watch.output.withLock { $0 })")
    }

    private static func listeningPort(_ text: String) -> Int? {
        guard let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(text[range].split(separator: ":").last ?? "")
    }

    private static func benchToken(_ text: String) -> String? {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("  "), words.count == 2, words[0] == "bench" { return String(words[1]) }
        }
        return nil
    }

    /// Stops the node (SIGINT: a clean stop) and returns its journal counters from the stop line.
    func stop() async -> String {
        kill(pid, SIGINT)
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = watch.exited.withLock { state -> Bool in
                        if state.done { return true }
                        state.waiter = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            if !first {
                kill(pid, SIGKILL)
                _ = await group.next()
            } else {
                group.cancelAll()
            }
            return first
        }
        let text = watch.output.withLock { $0 }
        guard stopped else { return "did not stop within 20 s (killed)" }
        guard let range = text.range(of: "this node: ") else { return "no counters in its stop line" }
        return String(text[range.upperBound...].prefix { $0 != "\n" })
    }
}
