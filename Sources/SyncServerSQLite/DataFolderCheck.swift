import Foundation
import SyncServerHost
import GRDB
import GRDBSQLite
import Synchronization
import SyncCore

/// What start-up checks in a data folder before it opens the database: a
/// folder that was used before but lacks its database, or holds pieces that
/// cannot belong together, is refused with a sentence naming what is wrong,
/// never treated as new state.
package enum DataFolderCheck {
    package static func checkFiles(in directory: URL, recover: Bool) throws {
        let manager = FileManager.default
        func exists(_ name: String) -> Bool { manager.fileExists(atPath: directory.appendingPathComponent(name).path) }
        let db = Journal.fileName
        let folder = directory.path
        if !exists(db) {
            if exists(db + "-wal") {
                throw ServeError(
                    "The data folder \(folder) holds \(db)-wal but not \(db): the database file is missing, and its newest writes alone cannot be read. Copy \(db) back next to its -wal file, or pass another --data folder.")
            }
            if exists("users.json") {
                throw ServeError(
                    "The data folder \(folder) holds users.json but no \(db): the server's state is missing (deleted, or not copied with the folder). Copy \(db) back, or remove users.json to start this folder with a new, empty state.")
            }
            return
        }
        if exists(db + "-shm"), !exists(db + "-wal"), !recover {
            throw ServeError(
                "The data folder \(folder) holds \(db)-shm but no \(db)-wal: the server was not stopped cleanly and the file with its newest writes (\(db)-wal) was deleted or not copied. Copy \(db)-wal back next to \(db), or start with --recover to continue from what \(db) alone holds (the writes in the missing file are lost).")
        }
        if recover, exists(db + "-shm"), !exists(db + "-wal") {
            try? manager.removeItem(at: directory.appendingPathComponent(db + "-shm"))
        }
    }

    /// After opening: a database with no state in a folder that was used before.
    package static func checkUsed(_ directory: URL, meta: [String: String], recover: Bool) throws {
        guard meta["seed"] == nil, !recover,
              FileManager.default.fileExists(atPath: directory.appendingPathComponent("users.json").path)
        else { return }
        throw ServeError(
            "\(directory.appendingPathComponent(Journal.fileName).path) holds no state, but users.json shows this folder was used: the database was truncated or replaced, or its -wal file was deleted. Restore the database (with its -wal file) from a copy, or start with --recover to begin again with an empty state in this folder.")
    }
}
