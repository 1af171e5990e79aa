import ArgumentParser
import Foundation
import SyncCore
import SyncNetwork
import SyncPostgres

/// `syncscope-bench`: the benchmarks, a program of their own so that the user's
/// `syncscope` does not carry them.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncscope-bench",
        abstract: "Measure the simulated server's costs (build with -c release).",
        discussion: """
            Each figure is measured in one run, with ratios so that machine noise cancels. \
            Run it as: syncscope-bench [--json], from a release build: a debug build's figures mean little. \
            With --http (a throwaway server in this process) or --server URL (a running syncscope serve on \
            this machine, with --coalescing-window 0 for the push figure), it measures network mode instead.
            """
    )

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(parsing: .unconditional, help: "Records in the large zone, at least 10,000 (the goals are stated for 1,000,000).")
    var records: Int = 1_000_000

    @Option(parsing: .unconditional, help: "Records saved for the save-throughput measurement, at least 1,000.")
    var saveRecords: Int = 300_000

    @Option(parsing: .unconditional, help: "Saves timed with 10 and with 10,000 subscriptions that do not match them, at least 100: routing a save must not cost more with more subscriptions.")
    var routingSaves: Int = 50_000

    @Option(parsing: .unconditional, help: "Saves in the coalesced push burst (one per virtual millisecond, 100 devices), at least 100.")
    var burstSaves: Int = 10_000

    @Flag(help: "Measure network mode against a throwaway server on a free loopback port (its journal in a temporary data folder), and the restart figures.")
    var http = false

    @Option(help: "Measure network mode against this running server (loopback addresses only).")
    var server: String?

    @Option(help: "With --server: the web auth token of the user to bench as.")
    var token: String?

    @Option(help: "With --server: that user's name.")
    var user = "alice"

    @Option(name: .customLong("http-clients"), parsing: .unconditional, help: "Concurrent clients saving over HTTP, 1 to 256.")
    var httpClients = 16

    @Option(name: .customLong("http-saves"), parsing: .unconditional, help: "Saves over HTTP, spread over the clients (bounded to 30 s), 1 to 1,000,000.")
    var httpSaves = 40_000

    @Option(name: .customLong("push-samples"), parsing: .unconditional, help: "Push-latency samples, 1 to 10,000.")
    var pushSamples = 300

    @Option(name: .customLong("changes-records"), parsing: .unconditional, help: "Records in the zone that changes/zone pages through over HTTP, 1,000 to 1,000,000.")
    var changesRecords = 100_000

    @Option(name: .customLong("restart-records"), parsing: .unconditional, help: "Records in the data folder whose restart --http times (replay and checkpoint), 4,000 to 2,000,000.")
    var restartRecords = 200_000

    @Flag(help: "Only the restart figures of --http (a data folder in a temporary directory, no HTTP).")
    var restartOnly = false

    @Flag(help: "Only the saves figures of --http or --server: saves over HTTP beside the bare Hummingbird ceiling, in alternating rounds.")
    var savesOnly = false

    @Flag(name: .customLong("feed-only"), help: "Only the event feed's cost: on servers with no watcher, with one watcher, and with a watcher that decodes every page, saves in phases with each one's feed recording and paused in turn.")
    var feedOnly = false

    @Flag(help: "Only the inspector's figures: records pane updates, frames and the live loop, on a 100,000-record zone.")
    var inspectorOnly = false

    @Flag(name: .customLong("signed-only"), help: "With --http: only what a request signed with a server-to-server key costs beside the same request with a web auth token (http_signed_request_ratio).")
    var signedOnly = false

    @Flag(name: .customLong("schema-only"), help: "Only what schema checks cost a save (schema_save_ratio): saves with a deployed schema and without, in process.")
    var schemaOnly = false

    @Option(name: .customLong("live-seconds"), parsing: .unconditional, help: "With --inspector-only: seconds the live loop (and the world alone) runs, 1 to 60.")
    var liveSeconds: Double = 3

    @Flag(name: .customLong("live-only"), help: ArgumentHelp("With --inspector-only: only the live loop's figures (to profile it).", visibility: .hidden))
    var liveOnly = false

    @Option(parsing: .unconditional, help: "With --http: serve nodes on one PostgreSQL database (--store), measured with 1 to this many nodes, 1 to 8; only these figures.")
    var nodes: Int?

    @Option(help: "With --nodes: a new, empty PostgreSQL database the bench may fill (default: $SYNCSCOPE_STORE).")
    var store: String?

    func validate() throws {
        guard (1...60).contains(liveSeconds) else { throw ValidationError("--live-seconds must be 1 to 60 (got \(liveSeconds)).") }
        if savesOnly && (!(http || server != nil) || restartOnly || nodes != nil) {
            throw ValidationError("--saves-only measures saves over HTTP: pass --http or --server, without --restart-only or --nodes.")
        }
        if feedOnly && (!http || server != nil || savesOnly || restartOnly || nodes != nil) {
            throw ValidationError("--feed-only measures the event feed on servers of its own: pass --http, without --server, --saves-only, --restart-only or --nodes.")
        }
        if signedOnly && (!http || server != nil || savesOnly || feedOnly || restartOnly || nodes != nil) {
            throw ValidationError("--signed-only measures signed requests on a server of its own: pass --http, without --server, --saves-only, --feed-only, --restart-only or --nodes.")
        }
        if schemaOnly && (http || server != nil || restartOnly || inspectorOnly) {
            throw ValidationError("--schema-only measures saves in process; it does not go with --http, --server, --restart-only or --inspector-only.")
        }
        if inspectorOnly && (http || server != nil || restartOnly) {
            throw ValidationError("--inspector-only measures the inspector in process; it does not go with --http, --server or --restart-only.")
        }
        if let nodes {
            guard http else { throw ValidationError("--nodes measures serve nodes over HTTP: pass --http too.") }
            guard (1...8).contains(nodes) else { throw ValidationError("--nodes must be 1 to 8 (got \(nodes)).") }
            guard try nodesStore() != nil else {
                throw ValidationError("--nodes needs a PostgreSQL database: pass --store postgres://USER@HOST:PORT/DB (a new, empty one; the bench fills it) or set SYNCSCOPE_STORE.")
            }
        } else if store != nil {
            throw ValidationError("--store is for --nodes (serve nodes on PostgreSQL).")
        }
        guard (4_000...2_000_000).contains(restartRecords) else { throw ValidationError("--restart-records must be 4000 to 2000000 (got \(restartRecords)).") }
        if let server {
            guard let url = URL(string: server), let host = url.host, ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) || host.hasPrefix("127.") else {
                throw ValidationError("--server must be a loopback address such as http://127.0.0.1:8400 (got '\(server)'); the benchmark sends traffic only on this machine.")
            }
            guard token != nil else { throw ValidationError("--server needs --token (syncscope serve prints each user's token).") }
        }
        guard (1...256).contains(httpClients) else { throw ValidationError("--http-clients must be 1 to 256 (got \(httpClients)).") }
        guard (1...1_000_000).contains(httpSaves) else { throw ValidationError("--http-saves must be 1 to 1000000 (got \(httpSaves)).") }
        guard (1_000...1_000_000).contains(changesRecords) else { throw ValidationError("--changes-records must be 1000 to 1000000 (got \(changesRecords)).") }
        guard (1...10_000).contains(pushSamples) else { throw ValidationError("--push-samples must be 1 to 10000 (got \(pushSamples)).") }
        guard routingSaves >= 100 else { throw ValidationError("--routing-saves must be at least 100 (got \(routingSaves)).") }
        guard burstSaves >= 100 else { throw ValidationError("--burst-saves must be at least 100 (got \(burstSaves)).") }
        guard records >= 10_000 else { throw ValidationError("--records must be at least 10000 (got \(records)).") }
        guard saveRecords >= 1_000 else { throw ValidationError("--save-records must be at least 1000 (got \(saveRecords)).") }
    }

    func run() async throws {
        if inspectorOnly {
            #if DEBUG
            FileHandle.standardError.write(Data("warning: this is a debug build; figures are meaningful only from a release build of syncscope-bench.\n".utf8))
            #endif
            var results = BenchmarkResults()
            results.figures = try await InspectorBenchmarkSuite(records: 100_000, liveSeconds: liveSeconds, liveOnly: liveOnly).run()
            print(json ? results.json() : results.table())
            return
        }
        if http || server != nil || restartOnly {
            try await runHTTP()
            return
        }
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; figures are meaningful only from a release build of syncscope-bench.\n".utf8))
        #endif
        let suite = BenchmarkSuite(largeZoneRecords: records, saveRecords: saveRecords, routingSaves: routingSaves, burstSaves: burstSaves)
        var results = BenchmarkResults()
        if schemaOnly {
            results.figures = try await suite.schemaFigures()
        } else {
            results = try await suite.run()
        }
        print(json ? results.json() : results.table())
    }

    /// The database of `--nodes`: --store, else SYNCSCOPE_STORE.
    func nodesStore() throws -> PostgresStoreURL? {
        do {
            return try store.map { try PostgresStoreURL(parsing: $0) } ?? PostgresStoreURL.fromEnvironment()
        } catch {
            throw ValidationError(store == nil ? "\(error)" : "--store: \(error)")
        }
    }

    func runHTTP() async throws {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; figures are meaningful only from a release build of syncscope-bench.\n".utf8))
        #endif
        if nodes != nil, let store = try nodesStore() {
            var results = BenchmarkResults()
            let outcome = try await NodesBenchmarks(
                store: store, nodes: nodes ?? 1, clients: httpClients, saves: httpSaves, changesRecords: changesRecords == 100_000 ? 20_000 : changesRecords,
                pushSamples: pushSamples
            ).run()
            results.figures = outcome.figures
            print(json ? results.json() : results.table())
            // The sentences go beside JSON on standard error, so standard output stays one JSON object.
            let notes = outcome.notes.map { "note: \($0)" }.joined(separator: "\n")
            if json { FileHandle.standardError.write(Data((notes + "\n").utf8)) } else { print("\n" + notes) }
            return
        }
        if feedOnly {
            var results = BenchmarkResults()
            results.figures = try await FeedCostBenchmarks(clients: httpClients, saves: httpSaves, timeLimit: 20).run()
            print(json ? results.json() : results.table())
            return
        }
        if restartOnly {
            var results = BenchmarkResults()
            results.figures = try await RestartBenchmarks(records: restartRecords).run()
            print(json ? results.json() : results.table())
            return
        }
        var target: (url: URL, token: String, user: String)
        var serverTask: Task<Void, any Error>?
        // The in-process server takes a server-to-server key; a server named by --server none we know.
        var signer: ServerKeySigner?
        if let server, let url = URL(string: server), let token {
            target = (url, token, user)
        } else {
            let started = try await InProcessHTTPServer.start()
            target = (started.url, started.token, started.user)
            signer = started.signer
            serverTask = started.task
        }
        defer {
            serverTask?.cancel()
            if serverTask != nil { try? FileManager.default.removeItem(at: InProcessHTTPServer.dataDirectory) }
        }
        let suite = HTTPBenchmarkSuite(
            baseURL: target.url, webAuthToken: target.token, user: target.user, clients: httpClients, saves: httpSaves, pushSamples: pushSamples,
            changesZoneRecords: changesRecords, savesOnly: savesOnly, signedOnly: signedOnly, serverKeySigner: signer)
        var results: BenchmarkResults
        do {
            results = try await suite.run()
        } catch let error as CloudError {
            throw BenchFailure(error: error)
        }
        if server == nil, !savesOnly, !signedOnly {
            results.figures += try await FeedCostBenchmarks(clients: httpClients, saves: httpSaves, timeLimit: 20).run()
            results.figures += try await RestartBenchmarks(records: restartRecords).run()
        }
        print(json ? results.json() : results.table())
        if server != nil {
            FileHandle.standardError.write(Data(
                "note: push latency includes the server's coalescing window; start it with --coalescing-window 0 for that figure.\n".utf8))
        }
    }
}
