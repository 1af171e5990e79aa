import Foundation
import GRDB
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// A clean stop leaves everything in `syncscope.sqlite`; start-up refuses a
/// damaged or half-present data folder with a sentence naming what is wrong;
/// `--recover` drops a damaged journal tail and says how many calls are lost.
@Suite struct DataFolderTests {
    let container = "iCloud.com.example.Folders"
    let manager = FileManager.default

    func options(_ directory: URL, recover: Bool = false) -> ServeOptions {
        ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 9, quiet: true, recover: recover)
    }

    func folder() -> URL { manager.temporaryDirectory.appendingPathComponent("folder-\(UUID().uuidString)") }

    func post(_ host: ServerHost, _ operation: String, _ json: String) async -> APIAnswer {
        await host.perform(APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice"))
    }

    /// A zone and `count` records; returns the record names.
    @discardableResult
    func populate(_ host: ServerHost, count: Int = 5) async -> [String] {
        #expect(await post(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        var names: [String] = []
        for i in 0..<count {
            let name = "r\(i)"
            #expect(await post(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#).status == 200)
            names.append(name)
        }
        return names
    }

    func names(_ host: ServerHost) async -> [String] {
        let answer = await post(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#)
        let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        let records = ((json?["zones"] as? [[String: Any]])?.first?["records"] as? [[String: Any]]) ?? []
        return records.compactMap { $0["recordName"] as? String }
    }

    /// The host's refusal, as the sentence `serve` prints.
    func refusal(_ options: ServeOptions) async -> String {
        do {
            _ = try await ServerHost.start(options: options)
            return ""
        } catch {
            return "\(error)"
        }
    }

    /// Copies the data files of a running server, as a kill -9 leaves them (WAL not folded in).
    func copyLive(_ from: URL, to: URL) throws {
        try manager.createDirectory(at: to, withIntermediateDirectories: true)
        for name in ["syncscope.sqlite", "syncscope.sqlite-wal", "syncscope.sqlite-shm", "users.json", "admin.json"]
        where manager.fileExists(atPath: from.appendingPathComponent(name).path) {
            try manager.copyItem(at: from.appendingPathComponent(name), to: to.appendingPathComponent(name))
        }
    }

    @Test func aCleanStopFoldsTheWALSoTheDatabaseFileAloneHoldsEverything() async throws {
        let directory = folder()
        let copy = folder()
        defer { try? manager.removeItem(at: directory); try? manager.removeItem(at: copy) }
        let saved: [String] = try await {
            let host = try await ServerHost.start(options: options(directory))
            let saved = await populate(host)
            #expect(await host.stop().contains("state saved"))
            return saved
        }()
        #expect(!manager.fileExists(atPath: directory.appendingPathComponent("syncscope.sqlite-wal").path))
        try manager.createDirectory(at: copy, withIntermediateDirectories: true)
        try manager.copyItem(at: directory.appendingPathComponent("syncscope.sqlite"), to: copy.appendingPathComponent("syncscope.sqlite"))
        let reopened = try await ServerHost.start(options: options(copy))
        #expect(reopened.startupReport.contains("restored the checkpoint"), "\(reopened.startupReport)")
        #expect(await names(reopened) == saved)
    }

    @Test func aFolderWithUsersButNoDatabaseIsRefused() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try await { let host = try await ServerHost.start(options: options(directory)); await populate(host); await host.stop() }()
        try manager.removeItem(at: directory.appendingPathComponent("syncscope.sqlite"))
        let sentence = await refusal(options(directory))
        #expect(sentence.contains("holds users.json but no syncscope.sqlite: the server's state is missing"), "\(sentence)")
    }

    @Test func aWALWithoutItsDatabaseIsRefused() async throws {
        let directory = folder()
        let copy = folder()
        defer { try? manager.removeItem(at: directory); try? manager.removeItem(at: copy) }
        let host = try await ServerHost.start(options: options(directory))
        await populate(host)
        try copyLive(directory, to: copy)
        try manager.removeItem(at: copy.appendingPathComponent("syncscope.sqlite"))
        let sentence = await refusal(options(copy))
        #expect(sentence.contains("holds syncscope.sqlite-wal but not syncscope.sqlite"), "\(sentence)")
    }

    @Test func aDeletedWALAfterACrashIsRefusedAndRecoverStartsFromTheDatabaseFile() async throws {
        let directory = folder()
        let copy = folder()
        defer { try? manager.removeItem(at: directory); try? manager.removeItem(at: copy) }
        let host = try await ServerHost.start(options: options(directory))
        await populate(host)
        try copyLive(directory, to: copy)
        try manager.removeItem(at: copy.appendingPathComponent("syncscope.sqlite-wal"))
        let sentence = await refusal(options(copy))
        #expect(sentence.contains("holds syncscope.sqlite-shm but no syncscope.sqlite-wal"), "\(sentence)")
        #expect(sentence.contains("--recover"))
    }

    @Test(arguments: [0, 1000])
    func aTruncatedDatabaseIsRefused(keptBytes: Int) async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try await { let host = try await ServerHost.start(options: options(directory)); await populate(host, count: 200); await host.stop() }()
        let file = directory.appendingPathComponent("syncscope.sqlite")
        let data = try Data(contentsOf: file)
        try data.prefix(keptBytes).write(to: file)
        let sentence = await refusal(options(directory))
        #expect(
            sentence.contains("holds no state, but users.json shows this folder was used") || sentence.contains("is damaged")
                || sentence.contains("cannot be read as a database"), "\(sentence)")
        #expect(!sentence.isEmpty)
    }

    @Test func aDamagedLastJournalRowStopsTheStartAndRecoverDropsItSayingHowManyCalls() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let saved: [String] = try await {
            // No clean stop: the calls stay in the journal, as after kill -9.
            let host = try await ServerHost.start(options: options(directory))
            return await populate(host, count: 6)
        }()
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("syncscope.sqlite").path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE journal SET body = CAST('{\"zoneID\":{\"zoneName\":\"Nates\"}}' AS BLOB) WHERE seq = (SELECT MAX(seq) FROM journal)")
        }
        try queue.close()
        let sentence = await refusal(options(directory))
        #expect(sentence.contains("is damaged (its checksum does not match)"), "\(sentence)")
        #expect(sentence.contains("the last 1 call") && sentence.contains("--recover"), "\(sentence)")

        let recovered = try await ServerHost.start(options: options(directory, recover: true))
        #expect(recovered.droppedCalls == 1)
        #expect(recovered.startupReport.contains("1 call lost"), "\(recovered.startupReport)")
        #expect(await names(recovered) == Array(saved.dropLast()))
    }

    @Test func journalRowsCarryAChecksum() async throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try await { let host = try await ServerHost.start(options: options(directory)); await populate(host, count: 3) }()
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("syncscope.sqlite").path)
        defer { try? queue.close() }
        let missing = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE checksum IS NULL") }
        let rows = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal") }
        #expect(missing == 0)
        #expect((rows ?? 0) >= 4)
    }
}
