import Foundation
import SyncServerHost
import GRDB
import GRDBSQLite
import Synchronization
import SyncCore

/// The server's storage: an SQLite database (WAL) in the data folder.
///
/// - `meta`: the seed (from which the token-signing key and every random
///   choice follow) and the settings the history was made with.
/// - `journal`: every call that changed the state, in the order it was
///   applied, with its time, user, device and a CRC-32 `checksum` of all of
///   them. The body is in `JournaledCallBody`'s form: a `records/modify` keeps
///   its decoded plan in binary, any other call its JSON (older rows are
///   JSON too, and replay as they are). A call is answered only after its row is committed; rows are
///   committed by ``GroupCommitter``, several calls per transaction, in the
///   order the engine applied them.
/// - `checkpoint`: the whole state (``ServerStateFile``: zones, records,
///   change logs, tombstones, users, subscriptions, devices and waiting
///   notifications) as of one journal row, in ``CheckpointFormat``, with its
///   checksum; older rows are deleted with it.
///
/// At start-up the server restores the checkpoint and replays the rows after
/// it through the deterministic engine, at their recorded times: the same
/// calls on the same state give the same state, and the same seed the same
/// signing key, so tokens issued before a restart (or a `kill -9`) still work.
///
/// Rules:
/// - Start-up never treats a damaged or half-present folder as new state
///   (``DataFolderCheck``); a row whose checksum does not match stops the
///   start with a sentence saying so, unless the server runs with
///   `--recover`, which drops that row and every one after it and says how
///   many calls that loses.
/// - A clean stop (``close()``) writes the WAL back into `syncscope.sqlite`
///   and removes the `-wal` and `-shm` files, so the database file alone
///   holds everything.
package final class Journal: Sendable {
    package let queue: DatabaseQueue
    package let path: String
    /// Held for as long as this journal is open: one server per data folder.
    package let lock: DataFolderLock

    /// Copies the WAL into the database file off the commit path.
    package let walCheckpointer: WALCheckpointer

    package static let fileName = "syncscope.sqlite"

    /// A journal row that does not read back as it was written.
    package struct DamagedRow: Error {
        /// The first bad row, and how many rows there are from it to the end.
        package var seq: Int64
        package var rowsFromIt: Int
        package var why: String
    }

    package init(directory: URL, recover: Bool = false) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        lock = try DataFolderLock(directory: directory)
        try DataFolderCheck.checkFiles(in: directory, recover: recover)
        path = directory.appendingPathComponent(Self.fileName).path
        var configuration = Configuration()
        configuration.journalMode = .wal
        // The WAL checkpointer's connection may hold a lock for a moment: wait for it rather than fail.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL with synchronous=NORMAL: a committed transaction survives the
            // process being killed at any moment (kill -9); only a power loss or
            // an operating-system crash may lose the last commits. A commit
            // never waits for the disk; copying the WAL into the database file
            // (a checkpoint, which does) is ``WALCheckpointer``'s, on a thread
            // of its own. SQLite's own checkpoint in the commit stays as a
            // backstop, should the WAL outgrow 10,000 pages all the same.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000")
        }
        walCheckpointer = WALCheckpointer(path: path)
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                throw ServeError(
                    "\(path) is damaged (SQLite's check says: \(check.prefix(3).joined(separator: "; "))). Restore it from a copy, or pass another --data folder.")
            }
        } catch let error as DatabaseError {
            throw ServeError(
                "\(path) cannot be read as a database (SQLite says: \(error.message ?? "\(error.resultCode)")): it is damaged or truncated. Restore it from a copy, or pass another --data folder.")
        }
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS journal (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,
                    method TEXT NOT NULL,
                    path TEXT NOT NULL,
                    user TEXT,
                    device TEXT,
                    body BLOB NOT NULL,
                    admin INTEGER NOT NULL DEFAULT 0,
                    checksum INTEGER
                );
                CREATE TABLE IF NOT EXISTS checkpoint (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    throughSeq INTEGER NOT NULL,
                    time INTEGER NOT NULL,
                    state BLOB NOT NULL,
                    checksum INTEGER
                );
                """)
            // Folders from before checksums: add the columns; their old rows stay unchecked.
            let journalColumns = Set(try db.columns(in: "journal").map(\.name))
            if !journalColumns.contains("admin") { try db.execute(sql: "ALTER TABLE journal ADD COLUMN admin INTEGER NOT NULL DEFAULT 0") }
            if !journalColumns.contains("checksum") { try db.execute(sql: "ALTER TABLE journal ADD COLUMN checksum INTEGER") }
            if !(try db.columns(in: "checkpoint").map(\.name)).contains("checksum") {
                try db.execute(sql: "ALTER TABLE checkpoint ADD COLUMN checksum INTEGER")
            }
        }
    }

    /// Writes everything back into the database file and closes it (a clean
    /// stop), then lets go of the folder: another server may open it at once.
    package func close() throws {
        defer { lock.release() }
        walCheckpointer.close()
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
    }

    package func meta() throws -> [String: String] {
        try queue.read { db in
            var result: [String: String] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT key, value FROM meta")
            while let row = try rows.next() { result[row["key"]] = row["value"] }
            return result
        }
    }

    package func setMeta(_ values: [String: String]) throws {
        try queue.write { db in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
            }
        }
    }

    /// The checksum of one row: CRC-32 over every field, each with its length.
    package static func checksum(time: Milliseconds, _ call: APICall) -> Int64 {
        var crc = CRC32()
        crc.add(String(time))
        crc.add(call.method)
        crc.add(call.path)
        crc.add(call.user ?? "\u{0}")
        crc.add(call.deviceID ?? "\u{0}")
        crc.add(call.isServerAdmin ? "1" : "0")
        crc.add(call.body)
        return Int64(crc.value)
    }

    /// What the group committer writes, in engine-step order.
    package enum Entry: Sendable {
        /// One call that changed the state, as row `seq` (kept in `JournaledCallBody`'s form, encoded by the committing thread).
        case row(seq: Int64, time: Milliseconds, call: PreparedCall)
        /// The whole state as of row `throughSeq`, encoded, with its CRC-32 (rows up to it are deleted with it).
        case checkpoint(state: Data, checksum: Int64, throughSeq: Int64, time: Milliseconds)
    }

    /// Commits entries in one transaction, in order: all of them, or none.
    /// Rows are encoded and summed before the transaction begins.
    package func write(_ entries: [Entry]) throws {
        var rows: [(call: APICall, checksum: Int64)] = []
        rows.reserveCapacity(entries.count)
        for entry in entries {
            if case .row(_, let time, let prepared) = entry {
                let call = JournaledCallBody.encode(prepared)
                rows.append((call, Self.checksum(time: time, call)))
            }
        }
        try queue.writeWithoutTransaction { db in
            // BEGIN and COMMIT come from the statement cache: every group
            // commit is a transaction, and compiling both each time (as
            // `write` does) cost every one of them.
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                try Self.insert(entries, rows: rows, in: db)
                try db.cachedStatement(sql: "COMMIT").execute()
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        walCheckpointer.committed(checkpoint: entries.contains { if case .checkpoint = $0 { true } else { false } })
    }

    /// The entries' rows and checkpoints, inside the transaction.
    private static func insert(_ entries: [Entry], rows: [(call: APICall, checksum: Int64)], in db: Database) throws {
        let insert = try db.cachedStatement(
            sql: "INSERT INTO journal (seq, time, method, path, user, device, body, admin, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        var next = 0
        for entry in entries {
            switch entry {
            case .row(let seq, let time, _):
                let row = rows[next]
                next += 1
                try Self.insert(row.call, seq: seq, time: time, checksum: row.checksum, with: insert, in: db)
            case .checkpoint(let state, let checksum, let through, let time):
                try Self.storeCheckpoint(state, checksum: checksum, through: through, time: time, in: db)
            }
        }
    }

    /// One row, bound and stepped with SQLite's own calls: the values bound as
    /// GRDB binds them (text and blobs copied, no row read back), without
    /// building a `StatementArguments` of boxed values for every row (a commit
    /// holds several rows, and every saved call is one).
    private static func insert(_ call: APICall, seq: Int64, time: Milliseconds, checksum: Int64, with statement: Statement, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        func text(_ index: CInt, _ value: String?) -> CInt {
            guard let value else { return sqlite3_bind_null(handle, index) }
            return sqlite3_bind_text(handle, index, value, -1, sqliteTransient)
        }
        let codes: [CInt] = [
            sqlite3_bind_int64(handle, 1, seq),
            sqlite3_bind_int64(handle, 2, time),
            text(3, call.method),
            text(4, call.path),
            text(5, call.user),
            text(6, call.deviceID),
            call.body.withUnsafeBytes { sqlite3_bind_blob(handle, 7, $0.baseAddress, CInt($0.count), sqliteTransient) },
            sqlite3_bind_int64(handle, 8, call.isServerAdmin ? 1 : 0),
            sqlite3_bind_int64(handle, 9, checksum),
        ]
        var code = codes.first { $0 != SQLITE_OK } ?? sqlite3_step(handle)
        if code == SQLITE_ROW { code = SQLITE_MISUSE }
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
    }

    /// The number of the last row ever written (deleted rows count: a number is never used twice).
    package func lastSeq() throws -> Int64 {
        try queue.read { db in
            let used = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'journal'") ?? 0
            let present = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM journal") ?? 0
            let checkpointed = try Int64.fetchOne(db, sql: "SELECT throughSeq FROM checkpoint WHERE id = 1") ?? 0
            return max(used, present, checkpointed)
        }
    }

    package struct Checkpoint {
        package var throughSeq: Int64
        package var time: Milliseconds
        package var state: Data
    }

    package func checkpoint() throws -> Checkpoint? {
        let found = try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT throughSeq, time, state, checksum FROM checkpoint WHERE id = 1").map {
                (Checkpoint(throughSeq: $0["throughSeq"], time: $0["time"], state: $0["state"]), $0["checksum"] as Int64?)
            }
        }
        guard let (checkpoint, checksum) = found else { return nil }
        if let checksum {
            var crc = CRC32()
            crc.add(checkpoint.state)
            guard Int64(crc.value) == checksum else {
                throw ServeError(
                    "The checkpoint in \(path) does not match its checksum: the database file is damaged. Restore it from a copy, or pass another --data folder.")
            }
        }
        return checkpoint
    }

    /// The last journal row the checkpoint holds (0 without a checkpoint).
    package func checkpointThroughSeq() throws -> Int64 {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT throughSeq FROM checkpoint WHERE id = 1") ?? 0 }
    }

    /// Stores a checkpoint as of row `through` (every row up to it), and
    /// deletes those rows, in one transaction; ``checkpointMetaKey`` in `meta`
    /// says how far it goes (so a checkpoint that goes missing is missed).
    package func writeCheckpoint(_ state: Data, through: Int64, time: Milliseconds) throws {
        var crc = CRC32()
        crc.add(state)
        try queue.write { db in
            try Self.storeCheckpoint(state, checksum: Int64(crc.value), through: through, time: time, in: db)
        }
    }

    /// The `meta` key that holds the last row the newest checkpoint holds:
    /// written with every checkpoint, in the same transaction.
    package static let checkpointMetaKey = "checkpointThrough"

    private static func storeCheckpoint(_ state: Data, checksum: Int64, through: Int64, time: Milliseconds, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO checkpoint (id, throughSeq, time, state, checksum) VALUES (1, ?, ?, ?, ?)",
            arguments: [through, time, state, checksum])
        try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [through])
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [checkpointMetaKey, String(through)])
    }

    /// Deletes row `seq` and every row after it (`serve --recover`).
    package func dropRows(from seq: Int64) throws {
        try queue.write { db in try db.execute(sql: "DELETE FROM journal WHERE seq >= ?", arguments: [seq]) }
    }

    private static func call(_ row: Row) -> APICall? {
        guard let method = row["method"] as String?, let path = row["path"] as String?, let body = row["body"] as Data? else { return nil }
        return APICall(
            method: method, path: path, body: body, user: row["user"], deviceID: row["device"],
            isServerAdmin: (row["admin"] as Int64?) == 1, isServerCall: path.hasPrefix("/internal/"))
    }

    /// Every row after `seq`, oldest first (its number, time and call), each
    /// checked against its checksum before `body` gets it; stops at the first
    /// damaged row and returns it with the number of rows replayed.
    package func replay(after seq: Int64, _ body: (Int64, Milliseconds, APICall) throws -> Void) throws -> (replayed: Int, damaged: DamagedRow?) {
        try queue.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT seq, time, method, path, user, device, body, admin, checksum FROM journal WHERE seq > ? ORDER BY seq",
                arguments: [seq])
            var count = 0
            while let row = try rows.next() {
                let seq: Int64 = row["seq"]
                let why: String?
                let call = Self.call(row)
                let time = row["time"] as Milliseconds?
                if let call, let time {
                    let stored = row["checksum"] as Int64?
                    why = stored == nil || stored == Self.checksum(time: time, call) ? nil : "its checksum does not match"
                } else {
                    why = "a field is missing or of the wrong kind"
                }
                if let why {
                    let left = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE seq >= ?", arguments: [seq]) ?? 1
                    return (count, DamagedRow(seq: seq, rowsFromIt: left, why: why))
                }
                if let call, let time { try body(seq, time, call) }
                count += 1
            }
            return (count, nil)
        }
    }
}

/// SQLite's "copy this value now" destructor (`SQLITE_TRANSIENT`), which C defines as a cast of -1.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
