import Foundation
import GRDB
import SyncCore

/// The server's storage: an SQLite database (WAL) in the data folder.
///
/// - `meta`: the seed (from which the token-signing key and every random
///   choice follow) and the settings the history was made with.
/// - `journal`: every call that changed the state, in the order it was
///   applied, with its time, user and device. A call is answered only after
///   its row is committed.
/// - `checkpoint`: the whole state (``ServerStateFile``: zones, records,
///   change logs, tombstones, users, subscriptions, devices and waiting
///   notifications) as of one journal row; older rows are deleted with it.
///
/// At start-up the server restores the checkpoint and replays the rows after
/// it through the deterministic engine, at their recorded times: the same
/// calls on the same state give the same state, and the same seed the same
/// signing key, so tokens issued before a restart (or a `kill -9`) still work.
final class Journal: Sendable {
    let queue: DatabaseQueue
    let path: String
    /// Held for as long as this journal is open: one server per data folder.
    let lock: DataFolderLock

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        lock = try DataFolderLock(directory: directory)
        path = directory.appendingPathComponent("syncscope.sqlite").path
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            // WAL with synchronous=NORMAL: a committed transaction survives the
            // process being killed at any moment (kill -9); only a power loss or
            // an operating-system crash may lose the last commits.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
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
                    body BLOB NOT NULL
                );
                CREATE TABLE IF NOT EXISTS checkpoint (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    throughSeq INTEGER NOT NULL,
                    time INTEGER NOT NULL,
                    state BLOB NOT NULL
                );
                """)
        }
    }

    func meta() throws -> [String: String] {
        try queue.read { db in
            var result: [String: String] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT key, value FROM meta")
            while let row = try rows.next() { result[row["key"]] = row["value"] }
            return result
        }
    }

    func setMeta(_ values: [String: String]) throws {
        try queue.write { db in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
            }
        }
    }

    /// Commits one call; returns its row number.
    @discardableResult
    func append(_ call: APICall, time: Milliseconds) throws -> Int64 {
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO journal (time, method, path, user, device, body) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [time, call.method, call.path, call.user, call.deviceID, call.body])
            return db.lastInsertedRowID
        }
    }

    struct Checkpoint {
        var throughSeq: Int64
        var state: Data
    }

    func checkpoint() throws -> Checkpoint? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT throughSeq, state FROM checkpoint WHERE id = 1").map {
                Checkpoint(throughSeq: $0["throughSeq"], state: $0["state"])
            }
        }
    }

    /// Stores a checkpoint as of every row up to now, and deletes those rows, in one transaction.
    func writeCheckpoint(_ state: Data, time: Milliseconds) throws {
        try queue.write { db in
            let through = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM journal") ?? 0
            let previous = try Int64.fetchOne(db, sql: "SELECT throughSeq FROM checkpoint WHERE id = 1") ?? 0
            try db.execute(
                sql: "INSERT OR REPLACE INTO checkpoint (id, throughSeq, time, state) VALUES (1, ?, ?, ?)",
                arguments: [max(through, previous), time, state])
            try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [through])
        }
    }

    /// Every row after `seq`, oldest first.
    func replay(after seq: Int64, _ body: (Milliseconds, APICall) throws -> Void) throws -> Int {
        try queue.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT time, method, path, user, device, body FROM journal WHERE seq > ? ORDER BY seq", arguments: [seq])
            var count = 0
            while let row = try rows.next() {
                let call = APICall(method: row["method"], path: row["path"], body: row["body"], user: row["user"], deviceID: row["device"])
                try body(row["time"], call)
                count += 1
            }
            return count
        }
    }
}
