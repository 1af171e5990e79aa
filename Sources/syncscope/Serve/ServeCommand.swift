import ArgumentParser
import Dispatch
import Foundation
import Logging
import SyncCore
import SyncPostgres
import SyncServer
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the simulated CloudKit server over HTTP (CloudKit Web Services; the running server describes its API at GET /openapi.json, and `syncscope help api` prints its reference), kept in SQLite or, for a team, in PostgreSQL.",
        discussion: """
            Prints where it listens, each user's web auth token and the server admin token (for admin/export, import and \
            reset; also in admin.json beside users.json, both readable by their owner only), then one line per request. \
            State survives restarts (and kill -9) in the data folder; tokens issued before a restart keep working. \
            Stop it with Ctrl-C.

            A team server: --store postgres://USER@HOST:PORT/DB (or SYNCSCOPE_STORE) keeps the state in PostgreSQL \
            instead, shared by any number of serve nodes, each on its own port or host: any node answers any request, \
            a token from one works on all, a device long-polling one node hears of writes on another. Prepare an \
            empty database once with --migrate. The password comes from the address or PGPASSWORD.
            """
    )

    @Option(help: "Address to listen on. Keep the loopback address unless other machines must reach it.")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "Port to listen on; 0 picks a free one (printed at start-up).")
    var port = 8400

    @Option(help: "Folder for the server's state (default: $XDG_DATA_HOME/syncscope or ~/.local/share/syncscope).")
    var data: String?

    @Flag(help: "Keep nothing: a throwaway server whose state goes when it stops.")
    var inMemory = false

    @Option(help: ArgumentHelp(
        "Keep the state in PostgreSQL, shared with other serve nodes on the same database (default: $SYNCSCOPE_STORE).",
        valueName: "postgres://USER[:PASSWORD]@HOST[:PORT]/DB"))
    var store: String?

    @Flag(help: "With --store: prepare the database first (create SyncScope's tables, or check they are this version's), then serve.")
    var migrate = false

    @Option(name: .customLong("user"), help: "A user of the server (repeat for more; default: alice and bob).")
    var users: [String] = []

    @Option(parsing: .unconditional, help: "Keep this many changes of history per zone and database; older tokens expire. Default: keep all.")
    var retention: Int?

    @Option(name: .customLong("coalescing-window"), parsing: .unconditional, help: "Milliseconds a push notification waits for newer ones to merge into it.")
    var coalescingWindow: Int64 = 200

    @Option(name: .customLong("import"), help: "A state file (from admin/export) that replaces the state at start-up.")
    var importFile: String?

    @Option(help: "A schema file in CloudKit's schema language (see `syncscope schema`): --schema-container has it in development and production from start-up, as after a deploy.")
    var schema: String?

    @Option(name: .customLong("schema-container"), help: "The container --schema applies to.")
    var schemaContainer = ServeOptions.defaultSchemaContainer

    @Option(parsing: .unconditional, help: "Seed of a new data folder (signing key, tokens); an existing folder keeps its own. Default: random.")
    var seed: UInt64?

    @Option(name: .customLong("offline-after"), parsing: .unconditional, help: "Milliseconds without a long-poll after which a device counts as offline.")
    var offlineAfter: Int64 = 60_000

    @Flag(help: "Do not log each request.")
    var quiet = false

    @Flag(help: "Start even when the journal's last rows are damaged: drop them (saying how many calls that loses), or continue without a deleted -wal file.")
    var recover = false

    @Option(name: .customLong("header-timeout"), parsing: .unconditional, help: "Seconds a client has to send a request's headers.")
    var headerTimeout: Double = 10

    @Option(name: .customLong("body-timeout"), parsing: .unconditional, help: "Seconds a client has to send a request's body after its headers.")
    var bodyTimeout: Double = 30

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional, help: "Seconds a kept-alive connection may sit idle between requests.")
    var idleTimeout: Double = 75

    @Option(name: .customLong("max-connections"), parsing: .unconditional, help: "Open connections at most (default: 1000, fewer if the process may open fewer files).")
    var maxConnections: Int?

    @Option(name: .customLong("max-polls-per-device"), parsing: .unconditional, help: "Open long-polls per device at most.")
    var maxPollsPerDevice = 2

    @Option(help: "Fault rules in force from start-up: a YAML or JSON list such as '- {kind: throttled, retryAfter: 3, times: 5}' (see syncscope client faults).")
    var faults: String?

    @Option(
        name: .customLong("server-key"),
        help: "A server-to-server key, KEYID=public.pem (an ECDSA P-256 public key in PEM; repeat for more): requests signed with it reach the public database.")
    var serverKeys: [String] = []

    /// `--server-key KEYID=public.pem`, read: key ID → the public key's PEM.
    func serverKeyFiles() throws -> [String: String] {
        var keys: [String: String] = [:]
        for option in serverKeys {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--server-key takes KEYID=public.pem (got '\(option)').")
            }
            do { keys[parts[0]] = try String(contentsOfFile: parts[1], encoding: .utf8) } catch {
                throw ValidationError("--server-key \(parts[0]): cannot read \(parts[1]) (\(error.localizedDescription)).")
            }
        }
        return keys
    }
    @Option(name: .customLong("event-feed"), parsing: .unconditional, help: "Events the event feed keeps for watchers (syncscope inspect --server, syncscope doctor); 0 turns it off.")
    var eventFeed = 10_000

    @Flag(name: .customLong("log-inspector-reads"), help: "Log the requests an inspector makes too (left out by default).")
    var logInspectorReads = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535 (got \(port)).") }
        if let retention, retention < 0 { throw ValidationError("--retention must be 0 or more (got \(retention)).") }
        guard coalescingWindow >= 0 else { throw ValidationError("--coalescing-window must be 0 or more (got \(coalescingWindow)).") }
        guard offlineAfter >= 0 else { throw ValidationError("--offline-after must be 0 or more (got \(offlineAfter)).") }
        if inMemory, data != nil { throw ValidationError("--in-memory and --data exclude each other.") }
        for (name, value) in [("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout)] {
            guard value.isFinite, value > 0, value <= 86_400 else { throw ValidationError("\(name) must be more than 0 and at most 86400 seconds (got \(value)).") }
        }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1 (got \(maxConnections)).") }
        guard eventFeed >= 0, eventFeed <= 10_000_000 else { throw ValidationError("--event-feed must be 0 to 10000000 (got \(eventFeed)).") }
        guard maxPollsPerDevice >= 1 else { throw ValidationError("--max-polls-per-device must be at least 1 (got \(maxPollsPerDevice)).") }
        if recover, inMemory { throw ValidationError("--recover repairs a data folder; --in-memory has none.") }
        try _ = storeAddress()
    }

    /// The PostgreSQL store asked for, by --store or SYNCSCOPE_STORE; `nil` for a data folder or memory.
    func storeAddress() throws -> PostgresStoreURL? {
        let fromEnvironment = store == nil
        let url: PostgresStoreURL?
        do {
            url = try store.map { try PostgresStoreURL(parsing: $0) } ?? PostgresStoreURL.fromEnvironment()
        } catch {
            // A malformed SYNCSCOPE_STORE names the variable itself.
            throw ValidationError(fromEnvironment ? "\(error)" : "--store: \(error)")
        }
        guard let url else {
            if migrate { throw ValidationError("--migrate prepares a PostgreSQL database: pass --store postgres://USER@HOST:PORT/DB (or set SYNCSCOPE_STORE).") }
            return nil
        }
        let source = fromEnvironment ? "SYNCSCOPE_STORE is set (\(url)), so the state is kept in PostgreSQL" : "--store keeps the state in PostgreSQL"
        if data != nil { throw ValidationError("\(source); --data names a folder for it instead. Pass one or the other\(fromEnvironment ? " (unset SYNCSCOPE_STORE to use --data)" : "").") }
        if inMemory { throw ValidationError("\(source); --in-memory keeps nothing. Pass one or the other\(fromEnvironment ? " (unset SYNCSCOPE_STORE to use --in-memory)" : "").") }
        if recover { throw ValidationError("\(source); --recover repairs a data folder, and PostgreSQL keeps its own.") }
        return url
    }

    func run() async throws {
        let storeURL = try storeAddress()
        let directory: URL? = inMemory || storeURL != nil ? nil : data.map { URL(fileURLWithPath: $0) } ?? ServeOptions.defaultDataDirectory
        var options = ServeOptions(
            host: host, port: port, dataDirectory: directory, users: users, retention: retention, coalescingWindow: coalescingWindow,
            importFile: importFile.map { URL(fileURLWithPath: $0) }, seed: seed, quiet: quiet, offlineAfter: offlineAfter, recover: recover,
            headerTimeout: headerTimeout, bodyTimeout: bodyTimeout, idleTimeout: idleTimeout,
            maxConnections: maxConnections ?? ServeOptions.defaultMaxConnections, maxPollsPerDevice: maxPollsPerDevice)
        options.serverKeys = try serverKeyFiles()
        options.eventFeedSize = eventFeed
        options.logInspectorReads = logInspectorReads
        options.schemaFile = schema.map { URL(fileURLWithPath: $0) }
        options.schemaContainer = schemaContainer
        let serverHost: ServerHost
        do {
            // Before the data folder is touched: a port in use changes nothing.
            try ListenCheck.check(host: host, port: port)
            let plan = try faults.map { path in
                do { return try FaultFile.plan(at: path) } catch { throw ValidationError("--faults: \(error)") }
            }
            if let storeURL {
                if migrate {
                    do {
                        switch try await PostgresJournalStore.migrate(storeURL) {
                        case .created: StandardOutput.write("migrate: created SyncScope's tables (schema version \(PostgresJournalStore.schemaVersion)) in \(storeURL)\n")
                        case .alreadyCurrent: StandardOutput.write("migrate: \(storeURL) is already current (schema version \(PostgresJournalStore.schemaVersion))\n")
                        case .upgraded(let from):
                            StandardOutput.write("migrate: upgraded \(storeURL) from schema version \(from) to \(PostgresJournalStore.schemaVersion)\n")
                        }
                    } catch let error as PostgresStoreError {
                        throw ServeFailure(description: error.description)
                    }
                }
                serverHost = try await ServerHost.start(options: options, store: storeURL)
            } else {
                serverHost = try await ServerHost.start(options: options)
            }
            if let plan, !plan.isEmpty { serverHost.addFaults(plan) }
        } catch let error as ServeError {
            // Not a usage mistake: say what is wrong, exit with status 1.
            throw ServeFailure(description: error.description)
        }
        let logger = Logger(label: "syncscope") { _ in LineLogHandler() }
        let server = SyncScopeHTTPServer(host: serverHost, logger: logger)
        let stop = StopOnSignal(host: serverHost, inMemory: directory == nil && storeURL == nil)
        stop.install()
        try await server.run { port in
            let shownHost = host.contains(":") ? "[\(host)]" : host
            var lines = ["SyncScope server listening on http://\(shownHost):\(port)"]
            if storeURL != nil {
                lines.append("data: \(serverHost.startupReport)")
            } else if let directory {
                lines.append("data: \(directory.path) (\(serverHost.startupReport))")
            } else {
                lines.append("data: in memory (gone when the server stops)")
            }
            lines.append("users and their web auth tokens\(directory.map { " (also in \(UsersFile.url(in: $0).path))" } ?? ""):")
            for user in serverHost.users {
                lines.append("  \(user.name.padding(toLength: max(8, user.name.count), withPad: " ", startingAt: 0))  \(user.webAuthToken)")
            }
            lines.append(
                "server admin token (for admin/reset, admin/import, admin/export\(directory.map { "; also in \($0.appendingPathComponent("admin.json").path)" } ?? "")):")
            lines.append("  \(serverHost.adminToken)")
            if serverHost.droppedCalls > 0 {
                lines.append("recovered: dropped \(serverHost.droppedCalls) damaged journal row\(serverHost.droppedCalls == 1 ? "" : "s"); \(serverHost.droppedCalls) acknowledged call\(serverHost.droppedCalls == 1 ? " is" : "s are") lost")
            }
            // In the banner (written at once), not print()ed: a pipe would hold those back.
            for rule in serverHost.faultRules { lines.append("fault #\(rule.id) in force: \(rule.rule)") }
            lines.append("try: curl -s -H 'Authorization: Bearer \(serverHost.users.first?.webAuthToken ?? "TOKEN")' http://\(shownHost):\(port)/database/1/iCloud.com.example.SyncScope/development/private/zones/list")
            StandardOutput.write(lines.joined(separator: "\n") + "\n")
        }
    }
}
