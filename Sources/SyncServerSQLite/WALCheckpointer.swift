import Foundation
import SyncServerHost
import GRDB
import GRDBSQLite
import Synchronization
import SyncCore

/// Copies the journal's WAL back into the database file (an SQLite
/// checkpoint) on a connection and a thread of its own.
///
/// A checkpoint flushes both files to the disk (`fsync`), which takes
/// milliseconds, and SQLite would otherwise run it inside the commit that
/// fills the WAL past its limit, holding up every call waiting for that
/// commit. A commit itself never flushes (WAL with synchronous=NORMAL:
/// what a commit wrote survives `kill -9`), so with checkpoints here no
/// call waits for the disk. A `PASSIVE` checkpoint copies what it can
/// without blocking the call committing rows; that commit starts the WAL over
/// once everything in it is copied.
package final class WALCheckpointer: Sendable {
    /// Commits between two checkpoints: a few hundred pages of WAL.
    package static let commitsPerCheckpoint = 128

    private struct State {
        package var commits = 0
        package var running = false
        package var closed = false
        package var connection: DatabaseQueue?
    }

    private let path: String
    private let state = Mutex(State())
    private let work = DispatchQueue(label: "syncscope.wal-checkpoint", qos: .utility)

    package init(path: String) {
        self.path = path
    }

    /// Counts one commit; starts a checkpoint after enough of them (or after a journal checkpoint, a large write).
    package func committed(checkpoint: Bool) {
        let start = state.withLock { state -> Bool in
            state.commits += 1
            guard checkpoint || state.commits >= Self.commitsPerCheckpoint, !state.running, !state.closed else { return false }
            state.commits = 0
            state.running = true
            return true
        }
        if start { work.async { [self] in run() } }
    }

    private func run() {
        var connection = state.withLock { $0.connection }
        if connection == nil {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            connection = try? DatabaseQueue(path: path, configuration: configuration)
        }
        // A failed checkpoint leaves the WAL as it is: the next one (or SQLite's own) copies it.
        try? connection?.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        let orphan = state.withLock { state -> DatabaseQueue? in
            state.running = false
            if state.closed { return connection }
            state.connection = connection
            return nil
        }
        try? orphan?.close()
    }

    /// Waits for a checkpoint under way and closes the connection (before the journal's own is closed).
    package func close() {
        state.withLock { $0.closed = true }
        work.sync {}
        let connection = state.withLock { state -> DatabaseQueue? in
            defer { state.connection = nil }
            return state.connection
        }
        try? connection?.close()
    }
}
