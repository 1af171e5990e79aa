import Foundation
import SyncServerHost
import GRDB
import SyncCore
import SyncWire

/// Reads a data folder's journal rows or its checkpoint and parses them,
/// and does nothing else: the limit a restart is measured against in the
/// same run (`syncscope-bench --http`: `restart_200k_*_ceiling_s`).
public enum DataFolderReading {
    /// Reads every journal row (time, path, caller, body) and parses its
    /// body into what it holds: a binary `records/modify` row into its plan
    /// (`JournaledCallBody`), a JSON row into its wire request. Returns the number of rows.
    public static func readAndParseJournal(in directory: URL) throws -> Int {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        return try queue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT seq, time, method, path, user, device, body, admin FROM journal ORDER BY seq")
            var count = 0
            while let row = try rows.next() {
                let path: String = row["path"]
                let body: Data = row["body"]
                if JournaledCallBody.isBinary(body) {
                    _ = try JournaledCallBody.decodePlan(body)
                } else if path.hasSuffix("/records/modify") {
                    _ = try WireJSON.decode(WireRecordsModifyRequest.self, from: body)
                } else {
                    _ = try WireJSON.decode(JSONValue.self, from: body)
                }
                count += 1
            }
            return count
        }
    }

    /// Reads the checkpoint and parses it (checksum included); returns its size in bytes.
    public static func readAndParseCheckpoint(in directory: URL) throws -> Int {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(Journal.fileName).path)
        defer { try? queue.close() }
        guard let state = try queue.read({ db in try Data.fetchOne(db, sql: "SELECT state FROM checkpoint WHERE id = 1") }) else {
            throw ServeError("\(directory.path) holds no checkpoint.")
        }
        var crc = CRC32()
        crc.add(state)
        _ = try CheckpointFormat.decode(state)
        return state.count
    }
}
