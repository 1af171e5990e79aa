import Foundation
import SyncCore
import SyncServer
import Testing

/// One engine on a virtual clock with three users, and short ways to drive it.
final class Fixture {
    let clock = VirtualClock()
    let engine: ServerEngine
    let alice = Caller(user: "alice", deviceID: "alice-phone")
    let bob = Caller(user: "bob", deviceID: "bob-laptop")
    let carol = Caller(user: "carol")
    let container = "iCloud.com.example.Tests"

    init(configuration: ServerConfiguration = ServerConfiguration()) throws {
        engine = ServerEngine(configuration: configuration, clock: clock)
        for user in ["alice", "bob", "carol"] { try engine.addUser(user) }
    }

    func db(_ scope: DatabaseScope, container: String? = nil, environment: ContainerEnvironment = .development) -> DatabaseID {
        DatabaseID(container: container ?? self.container, environment: environment, scope: scope)
    }

    var privateDB: DatabaseID { db(.private) }
    var sharedDB: DatabaseID { db(.shared) }

    func zone(_ name: String, owner: String = "alice") -> RecordZoneID {
        RecordZoneID(zoneName: name, ownerName: owner)
    }

    @discardableResult
    func createZone(_ name: String, by caller: Caller? = nil) throws -> RecordZoneID {
        let caller = caller ?? alice
        let id = zone(name, owner: caller.user)
        _ = try engine.modifyRecordZones(caller: caller, database: privateDB, saving: [id], deleting: []).first?.get()
        return id
    }

    func deleteZone(_ id: RecordZoneID, by caller: Caller? = nil) throws {
        _ = try engine.modifyRecordZones(caller: caller ?? alice, database: privateDB, saving: [], deleting: [id]).first?.get()
    }

    func record(_ name: String, in zoneID: RecordZoneID, type: String = "Note", _ fields: RecordFields = [:]) -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: zoneID), recordType: type, fields: fields)
    }

    /// Runs `records/modify`, returning every item's result.
    func modify(
        _ operations: [RecordOperation], in zoneID: RecordZoneID, by caller: Caller? = nil, database: DatabaseID? = nil,
        atomic: Bool = true, clientChangeTokenData: Data? = nil
    ) throws -> [Result<RecordOperationResult, CloudError>] {
        try engine.modifyRecords(
            caller: caller ?? alice, database: database ?? privateDB, zoneID: zoneID, operations: operations,
            atomic: atomic, clientChangeTokenData: clientChangeTokenData)
    }

    /// Saves records (each must succeed) and returns them as the server saved them.
    @discardableResult
    func save(
        _ records: [Record], in zoneID: RecordZoneID, by caller: Caller? = nil, database: DatabaseID? = nil,
        policy: RecordSavePolicy = .changedKeys
    ) throws -> [Record] {
        try modify(records.map { .save($0, policy: policy) }, in: zoneID, by: caller, database: database).map { result in
            guard case .saved(let record) = try result.get() else { throw FixtureError.unexpected("\(result)") }
            return record
        }
    }

    /// Saves one record (it must succeed) and returns it as the server saved it.
    @discardableResult
    func save(
        _ name: String, in zoneID: RecordZoneID, _ fields: RecordFields = [:], by caller: Caller? = nil,
        database: DatabaseID? = nil
    ) throws -> Record {
        try save([record(name, in: zoneID, fields)], in: zoneID, by: caller, database: database)[0]
    }

    /// Saves records `prefix1…prefixN`, each with an `n` field, in requests of 400.
    func saveMany(_ count: Int, prefix: String = "r", in zoneID: RecordZoneID, by caller: Caller? = nil) throws {
        var start = 1
        while start <= count {
            let end = min(count, start + 399)
            try save((start...end).map { record("\(prefix)\($0)", in: zoneID, ["n": .int64(Int64($0))]) }, in: zoneID, by: caller)
            start = end + 1
        }
    }

    func delete(_ names: [String], in zoneID: RecordZoneID, by caller: Caller? = nil, database: DatabaseID? = nil) throws {
        for result in try modify(names.map { .delete(RecordID(recordName: $0, zoneID: zoneID)) }, in: zoneID, by: caller, database: database) {
            _ = try result.get()
        }
    }

    func lookup(_ name: String, in zoneID: RecordZoneID, by caller: Caller? = nil, database: DatabaseID? = nil) throws -> Record {
        try engine.lookupRecords(caller: caller ?? alice, database: database ?? privateDB, zoneID: zoneID, recordNames: [name])[0].get()
    }

    /// One zone's `changes/zone` batch.
    func zoneChanges(
        _ zoneID: RecordZoneID, since token: ServerChangeToken? = nil, limit: Int? = nil, desiredKeys: [String]? = nil,
        by caller: Caller? = nil, database: DatabaseID? = nil
    ) throws -> ZoneChangesBatch {
        try engine.fetchRecordZoneChanges(
            caller: caller ?? alice, database: database ?? privateDB,
            [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token, resultsLimit: limit, desiredKeys: desiredKeys)]
        )[0].get()
    }

    /// Fetches batches until `moreComing` is false; returns every entry and the last token.
    func allZoneChanges(
        _ zoneID: RecordZoneID, since token: ServerChangeToken? = nil, limit: Int? = nil, by caller: Caller? = nil,
        database: DatabaseID? = nil
    ) throws -> (changes: [RecordChange], token: ServerChangeToken, batches: Int) {
        var changes: [RecordChange] = []
        var token = token
        var batches = 0
        while true {
            let batch = try zoneChanges(zoneID, since: token, limit: limit, by: caller, database: database)
            changes += batch.changes
            token = batch.serverChangeToken
            batches += 1
            if !batch.moreComing { return (changes, batch.serverChangeToken, batches) }
            guard batches < 10_000 else { throw FixtureError.unexpected("moreComing never ends") }
        }
    }

    func databaseChanges(
        since token: ServerChangeToken? = nil, limit: Int? = nil, by caller: Caller? = nil, database: DatabaseID? = nil
    ) throws -> DatabaseChangesBatch {
        try engine.fetchDatabaseChanges(caller: caller ?? alice, database: database ?? privateDB, since: token, resultsLimit: limit)
    }

    /// The zone token for "now", from a fetch that drains the zone.
    func currentZoneToken(_ zoneID: RecordZoneID, by caller: Caller? = nil, database: DatabaseID? = nil) throws -> ServerChangeToken {
        try allZoneChanges(zoneID, by: caller, database: database).token
    }

    /// The database token for "now", from a fetch that drains the database.
    func currentDatabaseToken(by caller: Caller? = nil, database: DatabaseID? = nil) throws -> ServerChangeToken {
        var token: ServerChangeToken?
        while true {
            let batch = try databaseChanges(since: token, by: caller, database: database)
            token = batch.serverChangeToken
            if !batch.moreComing { return batch.serverChangeToken }
        }
    }
}

enum FixtureError: Error {
    case unexpected(String)
}

/// The `CloudError` that `body` throws, or `nil` (recorded as an issue) when it throws none.
func cloudError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> CloudError? {
    do {
        let value = try body()
        Issue.record("expected a CloudError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as CloudError {
        return error
    } catch {
        Issue.record("expected a CloudError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error of a failed result, or `nil` (recorded as an issue) for a success.
func cloudError<T>(_ result: Result<T, CloudError>, sourceLocation: SourceLocation = #_sourceLocation) -> CloudError? {
    switch result {
    case .success(let value):
        Issue.record("expected a CloudError, got \(value)", sourceLocation: sourceLocation)
        return nil
    case .failure(let error):
        return error
    }
}

/// Expects `error` to have `code` and a reason that contains every one of `words` (ignoring case).
func expect(
    _ error: CloudError?, _ code: CloudError.Code, mentioning words: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("expected \(code), got no error", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    for word in words {
        #expect(
            error.reason.localizedCaseInsensitiveContains(word), "reason lacks '\(word)': \(error.reason)",
            sourceLocation: sourceLocation)
    }
}

extension Array where Element == RecordChange {
    /// "name" for a change, "-name" for a deletion.
    var summary: [String] {
        map { change in
            switch change {
            case .changed(let record): record.recordID.recordName
            case .deleted(let id, _): "-" + id.recordName
            }
        }
    }

    var records: [Record] {
        compactMap { if case .changed(let record) = $0 { record } else { nil } }
    }
}

extension Array where Element == DatabaseChange {
    /// "Zone" for a changed zone, "-Zone(reason)" for a removed one.
    var summary: [String] {
        map { change in
            switch change {
            case .zoneChanged(let id): id.zoneName
            case .zoneRemoved(let id, let reason): "-\(id.zoneName)(\(reason.rawValue))"
            }
        }
    }
}

extension Fixture {
    /// A fixture with history worth keeping, for the state-file tests: two
    /// zones, `records` saves, deletions, an edit, a share, a removed zone, a
    /// client token and a compaction. Returns the fixture and the kept zone.
    static func withHistory(records: Int = 30) throws -> (Fixture, RecordZoneID) {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let gone = try f.createZone("Gone")
        try f.saveMany(records, in: notes)
        try f.delete(["r3", "r7"], in: notes)
        try f.save("r4", in: notes, ["text": .string("edited")])
        try f.engine.shareRecordZone(caller: f.alice, database: f.privateDB, zoneID: notes, participants: ["bob"], revoke: false)
        try f.deleteZone(gone)
        _ = try f.modify([], in: notes, clientChangeTokenData: Data([1, 2, 3]))
        try f.engine.compactHistory(caller: f.alice, database: f.privateDB, scope: .private, zoneID: notes, keepLast: 20)
        return (f, notes)
    }
}
