import Foundation
import GRDB
import SyncCore
import SyncClient

/// GRDB has a `Record` class too; here a record is always SyncCore's.
typealias Record = SyncCore.Record

/// A ``LocalStore`` in an SQLite file (one file per device), in WAL mode.
///
/// Records are stored as JSON with their keys in columns; database tokens and
/// zone tokens are in separate tables; pending local changes in a queue table.
/// ``apply(_:)`` is one SQLite transaction. Open the same file again (after a
/// restart) and everything committed is there.
public final class SQLiteLocalStore: LocalStore {
    public let path: String
    private let dbQueue: DatabaseQueue
    public var faultInjector: ((StoreFaultPoint) throws -> Void)?

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.label = "SyncScope.LocalStore"
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(dbQueue)
    }

    /// Closes the database file; the store cannot be used afterwards.
    public func close() throws {
        try dbQueue.close()
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE record (
                    scope TEXT NOT NULL, zoneOwner TEXT NOT NULL, zoneName TEXT NOT NULL, recordName TEXT NOT NULL,
                    recordType TEXT NOT NULL, payload BLOB NOT NULL, stale INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (scope, zoneOwner, zoneName, recordName)
                ) WITHOUT ROWID;
                CREATE TABLE knownZone (
                    scope TEXT NOT NULL, zoneOwner TEXT NOT NULL, zoneName TEXT NOT NULL,
                    needsFetch INTEGER NOT NULL DEFAULT 0, stale INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (scope, zoneOwner, zoneName)
                ) WITHOUT ROWID;
                CREATE TABLE purgedZone (
                    scope TEXT NOT NULL, zoneOwner TEXT NOT NULL, zoneName TEXT NOT NULL,
                    PRIMARY KEY (scope, zoneOwner, zoneName)
                ) WITHOUT ROWID;
                CREATE TABLE databaseToken (
                    scope TEXT NOT NULL PRIMARY KEY, token TEXT NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE zoneToken (
                    scope TEXT NOT NULL, zoneOwner TEXT NOT NULL, zoneName TEXT NOT NULL, token TEXT NOT NULL,
                    PRIMARY KEY (scope, zoneOwner, zoneName)
                ) WITHOUT ROWID;
                CREATE TABLE pendingChange (
                    sequence INTEGER PRIMARY KEY,
                    scope TEXT NOT NULL, zoneOwner TEXT NOT NULL, zoneName TEXT NOT NULL, target TEXT NOT NULL,
                    kind TEXT NOT NULL, recordName TEXT, recordType TEXT NOT NULL, changedKeys TEXT NOT NULL,
                    isNewRecord INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (scope, zoneOwner, zoneName, target)
                );
                """)
        }
        migrator.registerMigration("v2: pending save policy") { db in
            try db.execute(sql: "ALTER TABLE pendingChange ADD COLUMN savePolicy TEXT NOT NULL DEFAULT 'ifServerRecordUnchanged'")
        }
        return migrator
    }

    // MARK: Reading

    public func record(_ recordID: RecordID, in scope: DatabaseScope) throws -> SyncCore.Record? {
        try dbQueue.read { db in
            let data = try Data.fetchOne(
                db, sql: "SELECT payload FROM record WHERE scope = ? AND zoneOwner = ? AND zoneName = ? AND recordName = ?",
                arguments: [scope.rawValue, recordID.zoneID.ownerName, recordID.zoneID.zoneName, recordID.recordName])
            return try data.map(CodableRecord.decode)
        }
    }

    public func records(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [SyncCore.Record] {
        try dbQueue.read { db in
            try Data.fetchAll(
                db, sql: "SELECT payload FROM record WHERE scope = ? AND zoneOwner = ? AND zoneName = ?",
                arguments: [scope.rawValue, zoneID.ownerName, zoneID.zoneName])
                .map(CodableRecord.decode)
        }.sorted { $0.recordID < $1.recordID }
    }

    public func allRecords(in scope: DatabaseScope) throws -> [SyncCore.Record] {
        try dbQueue.read { db in
            try Data.fetchAll(db, sql: "SELECT payload FROM record WHERE scope = ?", arguments: [scope.rawValue])
                .map(CodableRecord.decode)
        }.sorted { $0.recordID < $1.recordID }
    }

    public func staleRecordIDs(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [RecordID] {
        try dbQueue.read { db in
            try String.fetchAll(
                db, sql: "SELECT recordName FROM record WHERE scope = ? AND zoneOwner = ? AND zoneName = ? AND stale = 1",
                arguments: [scope.rawValue, zoneID.ownerName, zoneID.zoneName])
        }.sorted().map { RecordID(recordName: $0, zoneID: zoneID) }
    }

    public func knownZones(in scope: DatabaseScope) throws -> [KnownZone] {
        try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT zoneOwner, zoneName, needsFetch, stale FROM knownZone WHERE scope = ?", arguments: [scope.rawValue])
                .map { row in
                    KnownZone(
                        zoneID: RecordZoneID(zoneName: row["zoneName"], ownerName: row["zoneOwner"]),
                        needsFetch: row["needsFetch"], isStale: row["stale"])
                }
        }.sorted()
    }

    public func purgedZones(in scope: DatabaseScope) throws -> [RecordZoneID] {
        try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT zoneOwner, zoneName FROM purgedZone WHERE scope = ?", arguments: [scope.rawValue])
                .map { RecordZoneID(zoneName: $0["zoneName"], ownerName: $0["zoneOwner"]) }
        }.sorted()
    }

    public func databaseToken(for scope: DatabaseScope) throws -> ServerChangeToken? {
        try dbQueue.read { db in
            try String.fetchOne(db, sql: "SELECT token FROM databaseToken WHERE scope = ?", arguments: [scope.rawValue])
        }.map(ServerChangeToken.init(rawValue:))
    }

    public func zoneToken(for zoneID: RecordZoneID, in scope: DatabaseScope) throws -> ServerChangeToken? {
        try dbQueue.read { db in
            try String.fetchOne(
                db, sql: "SELECT token FROM zoneToken WHERE scope = ? AND zoneOwner = ? AND zoneName = ?",
                arguments: [scope.rawValue, zoneID.ownerName, zoneID.zoneName])
        }.map(ServerChangeToken.init(rawValue:))
    }

    public func tokenCache() throws -> TokenCache {
        try dbQueue.read { db in
            var cache = TokenCache()
            for row in try Row.fetchAll(db, sql: "SELECT scope, token FROM databaseToken") {
                guard let scope = DatabaseScope(rawValue: row["scope"]) else { continue }
                cache.setDatabaseToken(ServerChangeToken(rawValue: row["token"]), for: scope)
            }
            for row in try Row.fetchAll(db, sql: "SELECT scope, zoneOwner, zoneName, token FROM zoneToken") {
                guard let scope = DatabaseScope(rawValue: row["scope"]) else { continue }
                cache.setZoneToken(
                    ServerChangeToken(rawValue: row["token"]),
                    for: RecordZoneID(zoneName: row["zoneName"], ownerName: row["zoneOwner"]), in: scope)
            }
            return cache
        }
    }

    public func pendingChanges() throws -> [PendingChange] {
        try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pendingChange ORDER BY sequence").map { row in
                guard let scope = DatabaseScope(rawValue: row["scope"]), let kind = PendingChange.Kind(rawValue: row["kind"]),
                      let savePolicy = RecordSavePolicy(rawValue: row["savePolicy"])
                else {
                    throw SyncClientError.storeFailure("The pending change #\(row["sequence"] as Int64) in \(self.path) has an unknown scope, kind or save policy.")
                }
                let keysText: String = row["changedKeys"]
                let keys = try JSONDecoder().decode([String].self, from: Data(keysText.utf8))
                return PendingChange(
                    scope: scope, kind: kind, zoneID: RecordZoneID(zoneName: row["zoneName"], ownerName: row["zoneOwner"]),
                    recordName: row["recordName"], recordType: row["recordType"], changedKeys: keys, isNewRecord: row["isNewRecord"],
                    savePolicy: savePolicy)
            }
        }
    }

    // MARK: Writing

    public func apply(_ batch: StoreBatch) throws {
        let injector = faultInjector
        try dbQueue.write { db in
            let scope = batch.scope.rawValue
            if batch.beginDatabaseRefetch {
                try db.execute(sql: "DELETE FROM databaseToken WHERE scope = ?", arguments: [scope])
                try db.execute(sql: "UPDATE knownZone SET stale = 1 WHERE scope = ?", arguments: [scope])
            }
            for zoneID in batch.beginZoneRefetch {
                let args: StatementArguments = [scope, zoneID.ownerName, zoneID.zoneName]
                try db.execute(sql: "DELETE FROM zoneToken WHERE scope = ? AND zoneOwner = ? AND zoneName = ?", arguments: args)
                try db.execute(sql: "UPDATE record SET stale = 1 WHERE scope = ? AND zoneOwner = ? AND zoneName = ?", arguments: args)
            }
            for removal in batch.zoneRemovals {
                let args: StatementArguments = [scope, removal.zoneID.ownerName, removal.zoneID.zoneName]
                try db.execute(sql: "DELETE FROM zoneToken WHERE scope = ? AND zoneOwner = ? AND zoneName = ?", arguments: args)
                try db.execute(sql: "DELETE FROM knownZone WHERE scope = ? AND zoneOwner = ? AND zoneName = ?", arguments: args)
                if removal.removeRecords {
                    try db.execute(sql: "DELETE FROM record WHERE scope = ? AND zoneOwner = ? AND zoneName = ?", arguments: args)
                }
                if removal.removePendingChanges {
                    try db.execute(sql: "DELETE FROM pendingChange WHERE scope = ? AND zoneOwner = ? AND zoneName = ?", arguments: args)
                }
            }
            for zoneID in batch.zonesNeedingFetch {
                try db.execute(
                    sql: """
                        INSERT INTO knownZone (scope, zoneOwner, zoneName, needsFetch, stale) VALUES (?, ?, ?, 1, 0)
                        ON CONFLICT (scope, zoneOwner, zoneName) DO UPDATE SET needsFetch = 1, stale = 0
                        """,
                    arguments: [scope, zoneID.ownerName, zoneID.zoneName])
            }
            for zoneID in batch.zonesConfirmed {
                try db.execute(
                    sql: """
                        INSERT INTO knownZone (scope, zoneOwner, zoneName, needsFetch, stale) VALUES (?, ?, ?, 0, 0)
                        ON CONFLICT (scope, zoneOwner, zoneName) DO UPDATE SET stale = 0
                        """,
                    arguments: [scope, zoneID.ownerName, zoneID.zoneName])
            }
            for zoneID in batch.zonesFetched {
                try db.execute(
                    sql: "UPDATE knownZone SET needsFetch = 0 WHERE scope = ? AND zoneOwner = ? AND zoneName = ?",
                    arguments: [scope, zoneID.ownerName, zoneID.zoneName])
            }
            for recordID in batch.deletedRecordIDs {
                try db.execute(
                    sql: "DELETE FROM record WHERE scope = ? AND zoneOwner = ? AND zoneName = ? AND recordName = ?",
                    arguments: [scope, recordID.zoneID.ownerName, recordID.zoneID.zoneName, recordID.recordName])
            }
            for record in batch.savedRecords {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO record (scope, zoneOwner, zoneName, recordName, recordType, payload, stale)
                        VALUES (?, ?, ?, ?, ?, ?, 0)
                        """,
                    arguments: [
                        scope, record.recordID.zoneID.ownerName, record.recordID.zoneID.zoneName, record.recordID.recordName,
                        record.recordType, try CodableRecord.encode(record),
                    ])
            }
            try injector?(.afterRecords)
            for key in batch.pendingRemovals {
                try db.execute(
                    sql: "DELETE FROM pendingChange WHERE scope = ? AND zoneOwner = ? AND zoneName = ? AND target = ?",
                    arguments: [key.scope.rawValue, key.zoneID.ownerName, key.zoneID.zoneName, key.target])
            }
            for change in batch.pendingUpserts {
                let key = change.key
                try db.execute(
                    sql: "DELETE FROM pendingChange WHERE scope = ? AND zoneOwner = ? AND zoneName = ? AND target = ?",
                    arguments: [key.scope.rawValue, key.zoneID.ownerName, key.zoneID.zoneName, key.target])
                let keys = String(decoding: try JSONEncoder().encode(change.changedKeys), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO pendingChange (sequence, scope, zoneOwner, zoneName, target, kind, recordName, recordType, changedKeys, isNewRecord, savePolicy)
                        VALUES ((SELECT COALESCE(MAX(sequence), 0) + 1 FROM pendingChange), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        key.scope.rawValue, key.zoneID.ownerName, key.zoneID.zoneName, key.target, change.kind.rawValue,
                        change.recordName, change.recordType, keys, change.isNewRecord, change.savePolicy.rawValue,
                    ])
            }
            for zoneID in batch.purgedZonesAdded {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO purgedZone (scope, zoneOwner, zoneName) VALUES (?, ?, ?)",
                    arguments: [scope, zoneID.ownerName, zoneID.zoneName])
            }
            for zoneID in batch.purgedZonesRemoved {
                try db.execute(
                    sql: "DELETE FROM purgedZone WHERE scope = ? AND zoneOwner = ? AND zoneName = ?",
                    arguments: [scope, zoneID.ownerName, zoneID.zoneName])
            }
            try injector?(.beforeTokens)
            switch batch.databaseToken {
            case .set(let token)?:
                try db.execute(sql: "INSERT OR REPLACE INTO databaseToken (scope, token) VALUES (?, ?)", arguments: [scope, token.rawValue])
            case .remove?:
                try db.execute(sql: "DELETE FROM databaseToken WHERE scope = ?", arguments: [scope])
            case nil:
                break
            }
            for change in batch.zoneTokens {
                switch change.update {
                case .set(let token):
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO zoneToken (scope, zoneOwner, zoneName, token) VALUES (?, ?, ?, ?)",
                        arguments: [scope, change.zoneID.ownerName, change.zoneID.zoneName, token.rawValue])
                case .remove:
                    try db.execute(
                        sql: "DELETE FROM zoneToken WHERE scope = ? AND zoneOwner = ? AND zoneName = ?",
                        arguments: [scope, change.zoneID.ownerName, change.zoneID.zoneName])
                }
            }
            try injector?(.beforeCommit)
        }
    }
}
