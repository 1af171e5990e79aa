import Foundation
import GRDB
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

    func post(_ host: ServerHost, _ operation: String, _ json: String) -> APIAnswer {
        host.perform(APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice"))
    }

    /// A zone and `count` records; returns the record names.
    @discardableResult
    func populate(_ host: ServerHost, count: Int = 5) -> [String] {
        #expect(post(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        return (0..<count).map { i in
            let name = "r\(i)"
            #expect(post(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#).status == 200)
            return name
        }
    }

    func names(_ host: ServerHost) -> [String] {
        let answer = post(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#)
        let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        let records = ((json?["zones"] as? [[String: Any]])?.first?["records"] as? [[String: Any]]) ?? []
        return records.compactMap { $0["recordName"] as? String }
    }

    /// The host's refusal, as the sentence `serve` prints.
    func refusal(_ options: ServeOptions) -> String {
        do {
            _ = try ServerHost(options: options)
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

    @Test func aCleanStopFoldsTheWALSoTheDatabaseFileAloneHoldsEverything() throws {
        let directory = folder()
        let copy = folder()
        defer { try? manager.removeItem(at: directory); try? manager.removeItem(at: copy) }
        let saved: [String] = try {
            let host = try ServerHost(options: options(directory))
            let saved = populate(host)
            #expect(host.stop().contains("state saved"))
            return saved
        }()
        #expect(!manager.fileExists(atPath: directory.appendingPathComponent("syncscope.sqlite-wal").path))
        try manager.createDirectory(at: copy, withIntermediateDirectories: true)
        try manager.copyItem(at: directory.appendingPathComponent("syncscope.sqlite"), to: copy.appendingPathComponent("syncscope.sqlite"))
        let reopened = try ServerHost(options: options(copy))
        #expect(reopened.startupReport.contains("restored the checkpoint"), "\(reopened.startupReport)")
        #expect(names(reopened) == saved)
    }

    @Test func aFolderWithUsersButNoDatabaseIsRefused() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try { let host = try ServerHost(options: options(directory)); populate(host); host.stop() }()
        try manager.removeItem(at: directory.appendingPathComponent("syncscope.sqlite"))
        let sentence = refusal(options(directory))
        #expect(sentence.contains("holds users.json but no syncscope.sqlite: the server's state is missing"), "\(sentence)")
    }

    @Test func aWALWithoutItsDatabaseIsRefused() throws {
        let directory = folder()
        let copy = folder()
        defer { try? manager.removeItem(at: directory); try? manager.removeItem(at: copy) }
        let host = try ServerHost(options: options(directory))
        populate(host)
        try copyLive(directory, to: copy)
        try manager.removeItem(at: copy.appendingPathComponent("syncscope.sqlite"))
        let sentence = refusal(options(copy))
        #expect(sentence.contains("holds syncscope.sqlite-wal but not syncscope.sqlite"), "\(sentence)")
    }

    @Test func aDeletedWALAfterACrashIsRefusedAndRecoverStartsFromTheDatabaseFile() throws {
        let directory = folder()
        let copy = folder()
        defer { try? manager.removeItem(at: directory); try? manager.removeItem(at: copy) }
        let host = try ServerHost(options: options(directory))
        populate(host)
        try copyLive(directory, to: copy)
        try manager.removeItem(at: copy.appendingPathComponent("syncscope.sqlite-wal"))
        let sentence = refusal(options(copy))
        #expect(sentence.contains("holds syncscope.sqlite-shm but no syncscope.sqlite-wal"), "\(sentence)")
        #expect(sentence.contains("--recover"))
    }

    @Test(arguments: [0, 1000])
    func aTruncatedDatabaseIsRefused(keptBytes: Int) throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try { let host = try ServerHost(options: options(directory)); populate(host, count: 200); host.stop() }()
        let file = directory.appendingPathComponent("syncscope.sqlite")
        let data = try Data(contentsOf: file)
        try data.prefix(keptBytes).write(to: file)
        let sentence = refusal(options(directory))
        #expect(
            sentence.contains("holds no state, but users.json shows this folder was used") || sentence.contains("is damaged")
                || sentence.contains("cannot be read as a database"), "\(sentence)")
        #expect(!sentence.isEmpty)
    }

    @Test func aDamagedLastJournalRowStopsTheStartAndRecoverDropsItSayingHowManyCalls() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        let saved: [String] = try {
            // No clean stop: the calls stay in the journal, as after kill -9.
            let host = try ServerHost(options: options(directory))
            return populate(host, count: 6)
        }()
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("syncscope.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "UPDATE journal SET body = CAST('{\"zoneID\":{\"zoneName\":\"Nates\"}}' AS BLOB) WHERE seq = (SELECT MAX(seq) FROM journal)")
        }
        try queue.close()
        let sentence = refusal(options(directory))
        #expect(sentence.contains("is damaged (its checksum does not match)"), "\(sentence)")
        #expect(sentence.contains("the last 1 call") && sentence.contains("--recover"), "\(sentence)")

        let recovered = try ServerHost(options: options(directory, recover: true))
        #expect(recovered.droppedCalls == 1)
        #expect(recovered.startupReport.contains("1 call lost"), "\(recovered.startupReport)")
        #expect(names(recovered) == Array(saved.dropLast()))
    }

    @Test func journalRowsCarryAChecksum() throws {
        let directory = folder()
        defer { try? manager.removeItem(at: directory) }
        _ = try { let host = try ServerHost(options: options(directory)); populate(host, count: 3) }()
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("syncscope.sqlite").path)
        defer { try? queue.close() }
        let missing = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE checksum IS NULL") }
        let rows = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal") }
        #expect(missing == 0)
        #expect((rows ?? 0) >= 4)
    }
}
