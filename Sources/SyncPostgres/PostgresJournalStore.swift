import Foundation
import SyncCore
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// The journal of a server shared by several `syncscope serve` nodes, in PostgreSQL.
///
/// Every node appends the calls that change state to one journal and applies
/// the whole journal, in order, through its own deterministic engine: the
/// same calls at the same times give every node the same state.
///
/// Tables (in the schema `syncscope`):
/// - `meta`: `schema_version`, and the server's settings (seed, retention, …)
///   shared by every node (``meta()``, ``insertMetaIfAbsent(_:)``).
/// - `tail`: one row, the last position and the latest time asked for (the
///   time the last row applies at). An append's `UPDATE` locks it until the
///   append commits.
/// - `journal`: one row per call (``JournalRow``).
/// - `checkpoint`: the newest checkpoint (``StoredCheckpoint``).
/// - `delivery_claim`: which poll hands out which notification (see
///   ``claimDeliveries(device:notificationIDs:claimant:now:leaseMilliseconds:)``).
/// - `open_poll`: a lease per long-poll, whichever node it is open on, so a
///   device polling any node counts as online (schema version 2; see
///   ``openPoll(device:poll:until:)``).
///
/// Rules:
/// - One total order: an append takes the `tail` row lock, so appends from
///   any number of nodes and connections commit one after another, each at
///   the position after the last committed one. Positions have no gaps (a
///   rolled-back append gives its position back) and position order is
///   commit order: a reader that sees row N sees every row before it.
/// - A row keeps the time its node asked for; it is applied at the later of
///   that and the time the row before it was applied at
///   (``JournalRow/appliedTime(after:)``), so applied times never go
///   backwards, whichever node's clock is behind, and an append is one
///   statement that never waits to learn the journal's time first.
/// - An append is acknowledged only after it commits; the commit sends
///   `NOTIFY syncscope_tail` with the new position (``watchTail()``).
/// - A row whose checksum does not match is never handed out: reading it
///   throws a ``PostgresStoreError`` of kind `.damaged`.
/// - A checkpoint never replaces a newer one; rows are deleted only up to
///   the stored checkpoint (``foldRows(through:)``), and asking for rows
///   that were folded throws `.historyFolded`, so a node that far behind
///   restores the checkpoint instead.
public final class PostgresJournalStore: Sendable {
    /// The schema this build reads and writes; ``migrate(_:logger:)`` makes it.
    public static let schemaVersion = 2
    /// The channel `NOTIFY` sends a new tail position on.
    public static let tailChannel = "syncscope_tail"

    public let url: PostgresStoreURL
    let client: PostgresClient
    let runner: Task<Void, Never>
    let logger: Logger
    /// What this store asked PostgreSQL for, since it was opened.
    public let counters = Counters()
    private init(url: PostgresStoreURL, client: PostgresClient, logger: Logger) {
        self.url = url
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Closes every connection; the store cannot be used afterwards.
    public func close() {
        runner.cancel()
    }

    deinit { runner.cancel() }

    // MARK: Opening and migrating

    /// What ``migrate(_:logger:)`` found.
    public enum MigrationOutcome: Sendable, Equatable {
        /// The database was empty of SyncScope tables; the schema now exists.
        case created
        /// The schema was there already, at this build's version: nothing changed.
        case alreadyCurrent
        /// The schema was an earlier version's; it is this build's now (tables were added, none changed).
        case upgraded(from: Int)
    }

    /// Prepares an empty database (`serve --migrate`): creates the schema, or
    /// checks that the one there is this build's. Safe to run from several
    /// nodes at once (an advisory lock makes them take turns) and to run again.
    @discardableResult
    public static func migrate(_ url: PostgresStoreURL, logger: Logger = Logger(label: "syncscope.postgres")) async throws -> MigrationOutcome {
        let connection = try await connect(url, logger: logger, doing: "connecting to prepare the database")
        do {
            let outcome = try await migrate(on: connection, url: url, logger: logger)
            try? await connection.close()
            return outcome
        } catch {
            try? await connection.close()
            throw PostgresStoreError.from(error, url: url, doing: "preparing the database")
        }
    }

    private static func migrate(on connection: PostgresConnection, url: PostgresStoreURL, logger: Logger) async throws -> MigrationOutcome {
        try await connection.query("BEGIN", logger: logger)
        do {
            // Any 64-bit key: it only has to be the same for every node.
            try await connection.query("SELECT pg_advisory_xact_lock(7365636863)", logger: logger)
            let outcome: MigrationOutcome
            if let found = try await installedVersion(connection, logger: logger) {
                if found == 1 {
                    // Version 2 only adds the open_poll table.
                    try await connection.query(PostgresQuery(unsafeSQL: openPollTable), logger: logger)
                    try await connection.query(
                        "UPDATE syncscope.meta SET value = \(String(schemaVersion)) WHERE key = 'schema_version'", logger: logger)
                    outcome = .upgraded(from: 1)
                } else {
                    guard found == schemaVersion else { throw versionMismatch(found: found, url: url) }
                    outcome = .alreadyCurrent
                }
            } else {
                for statement in schemaStatements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO syncscope.meta (key, value) VALUES ('schema_version', \(String(schemaVersion)))", logger: logger)
                outcome = .created
            }
            try await connection.query("COMMIT", logger: logger)
            return outcome
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Opens the store at `url`, after checking that PostgreSQL answers, takes
    /// the credentials and holds this build's schema; each failure throws a
    /// ``PostgresStoreError`` with a sentence saying which.
    public static func open(
        _ url: PostgresStoreURL, maximumConnections: Int = 8, logger: Logger = Logger(label: "syncscope.postgres")
    ) async throws -> PostgresJournalStore {
        let probe = try await connect(url, logger: logger, doing: "connecting")
        do {
            let found = try await installedVersion(probe, logger: logger)
            try? await probe.close()
            guard let found else {
                throw PostgresStoreError(
                    .notMigrated,
                    "The database '\(url.database)' at \(url.hostAndPort) holds no SyncScope schema: prepare it once with syncscope serve --store \(url) --migrate.")
            }
            if found == 1 {
                throw PostgresStoreError(
                    .notMigrated,
                    "The database '\(url.database)' at \(url.hostAndPort) holds SyncScope's schema version 1, which this syncscope (version \(schemaVersion)) upgrades in place: stop the older nodes, then run syncscope serve --store \(url) --migrate once.")
            }
            guard found == schemaVersion else { throw versionMismatch(found: found, url: url) }
        } catch {
            try? await probe.close()
            throw PostgresStoreError.from(error, url: url, doing: "reading the schema version")
        }
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: try clientTLS(url))
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        return PostgresJournalStore(url: url, client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger)
    }

    static func versionMismatch(found: Int, url: PostgresStoreURL) -> PostgresStoreError {
        PostgresStoreError(
            .schemaVersionMismatch,
            found > schemaVersion
                ? "The database '\(url.database)' at \(url.hostAndPort) holds a SyncScope schema of version \(found), newer than this syncscope's (\(schemaVersion)): it was prepared by a later syncscope. Run that version, or use another database."
                : "The database '\(url.database)' at \(url.hostAndPort) holds a SyncScope schema of version \(found), older than this syncscope's (\(schemaVersion)), and this syncscope cannot upgrade it. Export the state with the syncscope that made it, then import it into a new database.")
    }

    /// The version in `syncscope.meta`, or `nil` when there is no SyncScope schema.
    static func installedVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let rows = try await connection.query("SELECT to_regclass('syncscope.meta') IS NOT NULL", logger: logger)
        var exists = false
        for try await (flag) in rows.decode(Bool.self) { exists = flag }
        guard exists else { return nil }
        var version: String?
        for try await (value) in try await connection.query(
            "SELECT value FROM syncscope.meta WHERE key = 'schema_version'", logger: logger
        ).decode(String.self) {
            version = value
        }
        guard let version else { return nil }
        return Int(version) ?? -1
    }

    static let schemaStatements = [
        "CREATE SCHEMA IF NOT EXISTS syncscope",
        "CREATE TABLE syncscope.meta (key text PRIMARY KEY, value text NOT NULL)",
        """
        CREATE TABLE syncscope.tail (
            id int PRIMARY KEY CHECK (id = 1),
            position bigint NOT NULL,
            time bigint NOT NULL,
            folded_through bigint NOT NULL)
        """,
        "INSERT INTO syncscope.tail (id, position, time, folded_through) VALUES (1, 0, 0, 0)",
        """
        CREATE TABLE syncscope.journal (
            position bigint PRIMARY KEY,
            time bigint NOT NULL,
            call bytea NOT NULL,
            checksum bigint NOT NULL)
        """,
        """
        CREATE TABLE syncscope.checkpoint (
            id int PRIMARY KEY CHECK (id = 1),
            through_position bigint NOT NULL,
            time bigint NOT NULL,
            format int NOT NULL,
            state bytea NOT NULL,
            checksum bigint NOT NULL)
        """,
        """
        CREATE TABLE syncscope.delivery_claim (
            device text NOT NULL,
            notification_id text NOT NULL,
            claimant text NOT NULL,
            written boolean NOT NULL,
            lease_until bigint NOT NULL,
            PRIMARY KEY (device, notification_id))
        """,
        openPollTable,
    ]

    static let openPollTable = """
        CREATE TABLE IF NOT EXISTS syncscope.open_poll (
            device text NOT NULL,
            poll text NOT NULL,
            until bigint NOT NULL,
            PRIMARY KEY (device, poll))
        """

    static func connectionConfiguration(_ url: PostgresStoreURL) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch url.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    static func clientTLS(_ url: PostgresStoreURL) throws -> PostgresClient.Configuration.TLS {
        switch url.tls {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }

    static func connect(_ url: PostgresStoreURL, logger: Logger, doing action: String) async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(configuration: try connectionConfiguration(url), id: 0, logger: logger)
        } catch {
            throw PostgresStoreError.from(error, url: url, doing: action)
        }
    }

    // MARK: Running queries

    @discardableResult
    func run<Result: Sendable>(_ action: String, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw PostgresStoreError.from(error, url: url, doing: action)
        }
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func transaction<Result: Sendable>(_ action: String, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await run(action) { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    // MARK: Settings

    /// The shared settings (`schema_version` among them).
    public func meta() async throws -> [String: String] {
        try await run("reading the settings") { connection in
            var result: [String: String] = [:]
            for try await (key, value) in try await connection.query("SELECT key, value FROM syncscope.meta", logger: logger).decode(
                (String, String).self)
            {
                result[key] = value
            }
            return result
        }
    }

    /// Sets `values`, replacing what was there.
    public func setMeta(_ values: [String: String]) async throws {
        try await transaction("writing the settings") { connection in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try await connection.query(
                    "INSERT INTO syncscope.meta (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    logger: logger)
            }
        }
    }

    /// Sets each of `values` that is not set yet and returns every setting as
    /// stored: when two nodes start on a new database at once, both get the
    /// first one's seed.
    public func insertMetaIfAbsent(_ values: [String: String]) async throws -> [String: String] {
        try await transaction("writing the settings") { connection in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try await connection.query(
                    "INSERT INTO syncscope.meta (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING", logger: logger)
            }
        }
        return try await meta()
    }

    // MARK: The journal

    /// Where one appended call went.
    public struct Appended: Sendable, Equatable {
        public var position: Int64
        /// The time recorded with the call (the time asked for); it applies at
        /// ``JournalRow/appliedTime(after:)`` of the row before it.
        public var time: Int64

        public init(position: Int64, time: Int64) {
            self.position = position
            self.time = time
        }
    }

    /// Commits one call at the next position; returns its position and time.
    public func append(time: Int64, call: Data) async throws -> Appended {
        try await append([(time: time, call: call)])[0]
    }

    /// Commits several calls in one transaction (group commit), at
    /// consecutive positions in the order given.
    ///
    /// One statement, one round trip, never sent again: it advances the
    /// counter row (locking it until the commit, which orders appends from
    /// every node), inserts the rows after it and notifies the watchers at
    /// commit. Each row keeps the time asked for, even when it is before the
    /// row ahead of it (another node's clock is ahead): a node applies a row
    /// at ``JournalRow/appliedTime(after:)`` of the row before, which only
    /// depends on the journal.
    public func append(_ calls: [(time: Int64, call: Data)]) async throws -> [Appended] {
        guard !calls.isEmpty else { return [] }
        let count = Int64(calls.count)
        var binds = PostgresBindings(capacity: calls.count * 3 + 3)
        binds.append(count)
        binds.append(calls.map(\.time).max() ?? 0)
        binds.append(Self.tailChannel)
        var values = ""
        for (index, call) in calls.enumerated() {
            let base = 3 + index * 3
            values += (index == 0 ? "" : ", ") + "($\(base + 1)::bigint, $\(base + 2)::bytea, $\(base + 3)::bigint, \(index + 1))"
            binds.append(call.time)
            try binds.append(call.call)
            binds.append(Self.checksum(time: call.time, call: call.call))
        }
        // The tail's time is the latest time asked for so far: the time the last row applies at.
        let sql = """
            WITH bumped AS (
                UPDATE syncscope.tail SET position = position + $1, time = GREATEST(time, $2) WHERE id = 1 RETURNING position
            ), inserted AS (
                INSERT INTO syncscope.journal (position, time, call, checksum)
                SELECT bumped.position - $1 + r.ord, r.time, r.call, r.checksum
                FROM bumped, (VALUES \(values)) AS r(time, call, checksum, ord)
                RETURNING position
            ), notified AS (
                SELECT pg_notify($3, position::text) FROM bumped
            )
            SELECT position, (SELECT count(*) FROM inserted), (SELECT count(*) FROM notified) FROM bumped
            """
        let last = try await run("appending to the journal") { connection -> Int64? in
            var last: Int64?
            for try await (position, inserted, _) in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                .decode((Int64, Int64, Int64).self)
            {
                guard inserted == count else {
                    throw PostgresStoreError(.damaged, "Appending to the journal in '\(url.database)' at \(url.hostAndPort) inserted \(inserted) of \(count) rows.")
                }
                last = position
            }
            return last
        }
        guard let last else {
            throw PostgresStoreError(
                .damaged,
                "The journal in '\(url.database)' at \(url.hostAndPort) has no counter row (syncscope.tail): it was deleted by hand. Restore the database from a copy.")
        }
        counters.count(appends: calls.count)
        return calls.enumerated().map { Appended(position: last - count + Int64($0.offset) + 1, time: $0.element.time) }
    }

    /// The last committed position (0 for an empty journal).
    public func tail() async throws -> Int64 {
        counters.tailReads.add(1, ordering: .relaxed)
        return try await run("reading the journal's tail") { connection in
            var position: Int64 = 0
            for try await (p) in try await connection.query("SELECT position FROM syncscope.tail WHERE id = 1", logger: logger).decode(
                Int64.self)
            {
                position = p
            }
            return position
        }
    }

    /// Up to `limit` rows after `position`, oldest first: what a node that has
    /// applied everything up to `position` applies next. Each row's checksum
    /// is checked; rows folded into the checkpoint throw `.historyFolded`.
    public func rows(after position: Int64, limit: Int = 1000) async throws -> [JournalRow] {
        // One statement, so one snapshot: the fold mark and the rows agree even while another node folds.
        let rows = try await run("reading the journal") { connection -> ([JournalRow], Int64) in
            var folded: Int64 = 0
            var rows: [JournalRow] = []
            for try await (f, p, t, call, checksum) in try await connection.query(
                """
                WITH mark AS (SELECT folded_through FROM syncscope.tail WHERE id = 1)
                SELECT mark.folded_through, j.position, j.time, j.call, j.checksum
                FROM mark LEFT JOIN LATERAL (
                    SELECT position, time, call, checksum FROM syncscope.journal
                    WHERE position > \(position) AND mark.folded_through <= \(position)
                    ORDER BY position LIMIT \(limit)) j ON true
                ORDER BY j.position
                """,
                logger: logger
            ).decode((Int64, Int64?, Int64?, Data?, Int64?).self) {
                folded = f
                if let p, let t, let call, let checksum { rows.append(JournalRow(position: p, time: t, call: call, checksum: checksum)) }
            }
            return (rows, folded)
        }
        counters.rowReads.add(1, ordering: .relaxed)
        counters.rowsRead.add(rows.0.count, ordering: .relaxed)
        guard position >= rows.1 else {
            throw PostgresStoreError(
                .historyFolded,
                "The journal rows after position \(position) are gone: rows up to \(rows.1) were folded into the checkpoint. Restore the checkpoint, then read on from its position.")
        }
        var expected = position + 1
        for row in rows.0 {
            guard row.position == expected else {
                throw PostgresStoreError(
                    .damaged, "The journal in '\(url.database)' at \(url.hostAndPort) has no row at position \(expected) but has one at \(row.position): rows were deleted by hand. Restore the database from a copy.")
            }
            guard row.checksum == Self.checksum(time: row.time, call: row.call) else {
                throw PostgresStoreError(
                    .damaged,
                    "The journal row at position \(row.position) in '\(url.database)' at \(url.hostAndPort) does not match its checksum: it was changed after it was written. Restore the database from a copy.")
            }
            expected += 1
        }
        return rows.0
    }

    /// CRC-32 over the time and the call, each with its length in front.
    public static func checksum(time: Int64, call: Data) -> Int64 {
        var crc = CRC32()
        crc.add(Data(String(time).utf8))
        crc.add(call)
        return Int64(crc.value)
    }

    // MARK: Checkpoints

    /// The newest checkpoint, checked against its checksum; `nil` when none was stored.
    public func checkpoint() async throws -> StoredCheckpoint? {
        let found = try await run("reading the checkpoint") { connection -> (StoredCheckpoint, Int64)? in
            var found: (StoredCheckpoint, Int64)?
            for try await (through, time, format, state, checksum) in try await connection.query(
                "SELECT through_position, time, format, state, checksum FROM syncscope.checkpoint WHERE id = 1", logger: logger
            ).decode((Int64, Int64, Int, Data, Int64).self) {
                found = (StoredCheckpoint(throughPosition: through, time: time, format: format, state: state), checksum)
            }
            return found
        }
        guard let (checkpoint, checksum) = found else { return nil }
        var crc = CRC32()
        crc.add(checkpoint.state)
        guard Int64(crc.value) == checksum else {
            throw PostgresStoreError(
                .damaged,
                "The checkpoint in '\(url.database)' at \(url.hostAndPort) does not match its checksum: it was changed after it was written. Restore the database from a copy.")
        }
        return checkpoint
    }

    /// Stores `checkpoint` unless a checkpoint through a later position is
    /// there already; returns whether it was stored. A checkpoint past the
    /// journal's tail is refused (it cannot describe rows that do not exist).
    @discardableResult
    public func storeCheckpoint(_ checkpoint: StoredCheckpoint) async throws -> Bool {
        var crc = CRC32()
        crc.add(checkpoint.state)
        let checksum = Int64(crc.value)
        return try await transaction("storing a checkpoint") { connection in
            var tail: Int64 = 0
            for try await (p) in try await connection.query("SELECT position FROM syncscope.tail WHERE id = 1", logger: logger).decode(
                Int64.self)
            {
                tail = p
            }
            guard checkpoint.throughPosition <= tail else {
                throw PostgresStoreError(
                    .failed,
                    "A checkpoint through position \(checkpoint.throughPosition) cannot be stored: the journal ends at \(tail).")
            }
            let rows = try await connection.query(
                """
                INSERT INTO syncscope.checkpoint (id, through_position, time, format, state, checksum)
                VALUES (1, \(checkpoint.throughPosition), \(checkpoint.time), \(checkpoint.format), \(checkpoint.state), \(checksum))
                ON CONFLICT (id) DO UPDATE SET through_position = excluded.through_position, time = excluded.time,
                    format = excluded.format, state = excluded.state, checksum = excluded.checksum
                WHERE syncscope.checkpoint.through_position <= excluded.through_position
                RETURNING id
                """, logger: logger)
            var stored = false
            for try await _ in rows.decode(Int.self) { stored = true }
            return stored
        }
    }

    /// Deletes the journal rows up to `position`, never past the stored
    /// checkpoint (a node that has not seen them restores the checkpoint);
    /// returns the position rows are now folded through.
    @discardableResult
    public func foldRows(through position: Int64) async throws -> Int64 {
        try await transaction("folding journal rows into the checkpoint") { connection in
            var limit: Int64 = 0
            for try await (p) in try await connection.query(
                "SELECT through_position FROM syncscope.checkpoint WHERE id = 1", logger: logger
            ).decode(Int64.self) {
                limit = p
            }
            let through = min(position, limit)
            try await connection.query(
                "UPDATE syncscope.tail SET folded_through = GREATEST(folded_through, \(through)) WHERE id = 1", logger: logger)
            try await connection.query("DELETE FROM syncscope.journal WHERE position <= \(through)", logger: logger)
            var folded: Int64 = 0
            for try await (p) in try await connection.query("SELECT folded_through FROM syncscope.tail WHERE id = 1", logger: logger)
                .decode(Int64.self)
            {
                folded = p
            }
            return folded
        }
    }
}

extension PostgresJournalStore {
    /// Running totals of what a store asked PostgreSQL for: the bench and a
    /// node's stop line read them to show where the journal's time goes.
    public final class Counters: Sendable {
        /// Calls appended.
        public let appended = Atomic<Int>(0)
        /// Append statements committed (one per group commit; never sent twice).
        public let commits = Atomic<Int>(0)
        /// `rows(after:)` queries and the rows they returned (catching up).
        public let rowReads = Atomic<Int>(0)
        public let rowsRead = Atomic<Int>(0)
        /// Tail reads (before reads, polls, unknown tokens).
        public let tailReads = Atomic<Int>(0)
        /// Times a node restored the checkpoint because the rows it needed were folded (counted by the node).
        public let historyRestores = Atomic<Int>(0)

        func count(appends: Int) {
            appended.add(appends, ordering: .relaxed)
            commits.add(1, ordering: .relaxed)
        }

        /// One line: "N calls appended in M commits, …" (each commit is one statement).
        public var summary: String {
            let appended = appended.load(ordering: .relaxed)
            let commits = commits.load(ordering: .relaxed)
            let perCommit = commits == 0 ? 0 : Double(appended) / Double(commits)
            return "\(appended) calls appended in \(commits) one-statement commits (\(String(format: "%.1f", perCommit)) a commit), "
                + "\(rowsRead.load(ordering: .relaxed)) rows read back in \(rowReads.load(ordering: .relaxed)) queries, "
                + "\(tailReads.load(ordering: .relaxed)) tail reads"
        }
    }
}
