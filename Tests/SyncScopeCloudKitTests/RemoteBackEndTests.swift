import Foundation
import SyncScopeCloudKit
import SyncServerHTTP
import SyncServerHost
import SyncServerSQLite
import Synchronization
import Testing

/// The same sync layer over the second back end: a `syncscope serve` (in this process, on a
/// loopback port) reached over HTTP, as `SYNCSCOPE_SERVER` would.
@Suite struct RemoteBackEndTests {
    /// `serve` in memory on a free loopback port, with its users alice and bob.
    final class Serve: Sendable {
        let host: ServerHost
        let port: Int
        let task: Task<Void, any Error>

        init() async throws {
            let host = try await ServerHost.start(options: ServeOptions(port: 0, dataDirectory: nil, coalescingWindow: 0, seed: 11, quiet: true))
            let bound = Mutex<Int?>(nil)
            let server = SyncScopeHTTPServer(host: host)
            task = Task { try await server.run { port in bound.withLock { $0 = port } } }
            let deadline = ContinuousClock.now + .seconds(120)
            while bound.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            self.host = host
            port = try #require(bound.withLock { $0 })
        }

        func backEnd(_ user: String) -> SyncScopeBackEnd {
            let token = host.users.first { $0.name == user }?.webAuthToken ?? ""
            return .http(baseURL: URL(string: "http://127.0.0.1:\(port)")!, user: user, webAuthToken: token)
        }
    }

    @Test func theContactsLayerSyncsThroughARunningServer() async throws {
        let serve = try await Serve()
        defer { serve.task.cancel() }
        let identifier = "iCloud.com.example.SyncScope"
        SyncScopeBackEnd.install(serve.backEnd("alice"), forContainer: identifier)
        defer { SyncScopeBackEnd.install(.inProcess(), forContainer: identifier) }

        let phone = SyncedDatabase(container: CKContainer(identifier: identifier))
        let laptop = SyncedDatabase(container: CKContainer(identifier: identifier))
        for i in 0..<12 { await phone.saveContact(id: "c\(i)", name: "Contact \(i)") }
        try await phone.syncEngine.sendChanges()
        try await laptop.syncEngine.fetchChanges()
        #expect(await laptop.contacts.count == 12)

        await laptop.saveContact(id: "c0", name: "Renamed on the laptop")
        try await laptop.syncEngine.sendChanges()
        try await phone.syncEngine.fetchChanges()
        #expect(await phone.contacts.first { $0.id == "c0" }?.name == "Renamed on the laptop")

        // The server's own view, through CKDatabase over HTTP.
        let database = CKContainer(identifier: identifier).privateCloudDatabase
        let record = try await database.record(for: CKRecord.ID(recordName: "c0", zoneID: SyncedDatabase.zoneID))
        #expect(record.encryptedValues[.contact_name] as? String == "Renamed on the laptop")
        #expect(try await database.allRecordZones().map(\.zoneID).contains(SyncedDatabase.zoneID))
        do {
            _ = try await database.record(for: CKRecord.ID(recordName: "nobody", zoneID: SyncedDatabase.zoneID))
            Issue.record("found a record never saved")
        } catch CKError.unknownItem {}
    }
}
