import Foundation
import SyncTestSupport
import SyncCore
import SyncClient
import SyncNetwork
import Synchronization
import Testing

@Suite struct NetworkPushTests {
    func subscribe(_ server: ServerProcess, user: String = "alice") async throws {
        let answer = try await server.call(
            server.db("private", "subscriptions/modify"),
            ["operations": [["operationType": "create", "subscription": ["subscriptionID": "all", "subscriptionType": "database"]]]], user: user)
        #expect(answer.status == 200, "\(answer.json)")
    }

    @Test func theLongPollAnswersWithTheNotificationButNotToTheDeviceThatMadeTheChange() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        try await subscribe(server)
        let phone = try await server.registerDevice()
        let laptop = try await server.registerDevice()

        // The laptop saves: the phone hears of it, the laptop does not.
        async let polled = server.call(phone.url + "?timeout=20", timeout: 40)
        try await server.save(["n1"], in: "Notes", device: laptop.id)
        let answer = try await polled
        // One notification, in Apple's push form: a database notification is `ck.met`.
        let met = (answer.json["ck"] as? [String: Any])?["met"] as? [String: Any]
        #expect(met?["sid"] as? String == "all", "\(answer.json)")
        #expect(met?["dbs"] as? Int == 2, "the private database")
        #expect((answer.json["syncscope"] as? [String: Any])?["notificationType"] as? String == "database")
        let laptopPoll = try await server.call(laptop.url + "?timeout=0")
        #expect(laptopPoll.status == 200 && laptopPoll.data.isEmpty)
        // A poll with nothing waiting answers an empty body when its time is up.
        let idle = try await server.call(phone.url + "?timeout=0.2")
        #expect(idle.status == 200 && idle.data.isEmpty)
        // An unknown device gets a 404.
        let unknown = try await server.call(server.device("webcourier/nobody") + "?timeout=0")
        #expect(unknown.status == 404)
    }

    @Test func notificationsWaitingInTheCoalescingWindowMergeIntoOne() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "1500"])
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        try await subscribe(server)
        let phone = try await server.registerDevice()
        for name in ["a", "b", "c"] { try await server.save([name], in: "Notes", device: "laptop") }
        let answer = try await server.call(phone.url + "?timeout=20", timeout: 40)
        #expect((answer.json["ck"] as? [String: Any])?["met"] != nil, "\(answer.json)")
        #expect((answer.json["syncscope"] as? [String: Any])?["coalescedCount"] as? Int == 3)
        // The three were one: nothing else waits.
        let next = try await server.call(phone.url + "?timeout=0")
        #expect(next.status == 200 && next.data.isEmpty)
    }
}

@Suite struct NetworkClientTests {
    func connect(_ server: ServerProcess, _ user: String, device: String? = nil) throws -> HTTPCloudService {
        HTTPCloudService(
            baseURL: server.baseURL, webAuthToken: try #require(server.tokens[user]), userRecordName: user, deviceID: device,
            container: ServerProcess.container)
    }

    @Test func twoDevicesSyncThroughTheServerWithTheHTTPCloudService() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let phone = try await connect(server, "alice").withNewDevice()
        let laptop = try await connect(server, "alice").withNewDevice()
        try await phone.registerForPushNotifications()
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        for result in try await laptop.modifyRecordZones(in: .private, saving: [zone], deleting: []) { _ = try result.get() }
        for result in try await phone.modifySubscriptions(in: .private, saving: [.database(DatabaseSubscription(subscriptionID: "all"))], deleting: []) {
            _ = try result.get()
        }
        // The phone catches up from no token.
        let first = try await phone.fetchRecordZoneChanges(in: .private, [ZoneChangesRequest(zoneID: zone)])[0].get()
        #expect(first.changes.isEmpty)

        let note = Record(recordID: RecordID(recordName: "n1", zoneID: zone), recordType: "Note", fields: ["title": .string("Hi"), "stars": .int64(4)])
        let saved = try await laptop.modifyRecords(in: .private, zoneID: zone, operations: [.save(note)])
        guard case .saved(let savedRecord) = try saved[0].get() else { throw TestFailure("not saved") }
        #expect(savedRecord.recordChangeTag != nil)
        #expect(savedRecord.modified?.deviceID == laptop.deviceID)

        // The push says "something changed"; the phone fetches with its token.
        let pushes = try await phone.waitForPushNotifications(timeout: 20)
        #expect(pushes.map(\.subscriptionID) == ["all"])
        let second = try await phone.fetchRecordZoneChanges(
            in: .private, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: first.serverChangeToken)])[0].get()
        #expect(second.changes == [.changed(savedRecord)])

        // A stale save is a conflict carrying the server's record, as in-process.
        var stale = note
        stale.recordChangeTag = "stale"
        let conflict = try await phone.modifyRecords(in: .private, zoneID: zone, operations: [.save(stale)])
        guard case .failure(let error) = conflict[0] else { throw TestFailure("expected a conflict") }
        #expect(error.code == .serverRecordChanged)
        #expect(error.serverRecord == savedRecord)

        // Database changes and zone listing come through typed.
        let database = try await phone.fetchDatabaseChanges(in: .private, since: nil, resultsLimit: nil)
        #expect(database.changes == [.zoneChanged(zone)])
        #expect(try await phone.listRecordZones(in: .private).map(\.zoneID.zoneName) == ["Notes", "_defaultZone"])
        // Whole-request errors are thrown as CloudError with the server's reason.
        await #expect(throws: CloudError.self) {
            _ = try await phone.fetchDatabaseChanges(in: .public, since: nil, resultsLimit: nil)
        }
    }
}

@Suite struct NetworkDurabilityTests {
    @Test func killNineLosesNoAcknowledgedChangeAndOldTokensStillWork() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-durability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let first = try await ServerProcess.start(data: data)
        try await first.createZone("Log")
        let before = try await first.zoneChanges("Log").token

        let acknowledged = Mutex<[String]>([])
        let midToken = Mutex<String?>(nil)
        let writer = Task {
            for i in 0..<2_000 {
                let name = "r\(i)"
                guard let answer = try? await first.save([name], in: "Log", timeout: 5), answer.status == 200 else { return }
                acknowledged.withLock { $0.append(name) }
                if i == 20, let token = try? await first.zoneChanges("Log").token { midToken.withLock { $0 = token } }
            }
        }
        // Wait (bounded) until some writes were acknowledged, then kill the server mid-stream.
        for _ in 0..<2_000 where acknowledged.withLock({ $0.count }) < 60 { await Task.yield(); try await Task.sleep(for: .milliseconds(5)) }
        first.kill9()
        await writer.value
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 60)

        let second = try await ServerProcess.start(data: data)
        defer { second.stop() }
        #expect(second.tokens == first.tokens)
        let all = try await second.zoneChanges("Log")
        #expect(Set(acked).isSubset(of: Set(all.names)), "lost: \(Set(acked).subtracting(all.names).sorted())")
        // A token from before the crash fetches incrementally, without expiring.
        let since = try await second.zoneChanges("Log", since: before)
        #expect(since.error == nil)
        #expect(since.names == all.names)
        let mid = try #require(midToken.withLock { $0 })
        let sinceMid = try await second.zoneChanges("Log", since: mid)
        #expect(sinceMid.error == nil)
        #expect(!sinceMid.names.contains("r0") && sinceMid.names.count < all.names.count)
    }
}

extension NetworkDurabilityTests {
    @Test func killNineFiveTimesDuringWritesLosesNoAcknowledgedWrite() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-kill9-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var acknowledgedInAll: [String] = []
        var kills = 0
        for round in 0..<5 {
            let server = try await ServerProcess.start(data: data)
            if round == 0 { try await server.createZone("Log") }
            // Everything acknowledged before is there after the restart.
            let present = Set(try await server.zoneChanges("Log").names)
            #expect(Set(acknowledgedInAll).isSubset(of: present), "round \(round) lost: \(Set(acknowledgedInAll).subtracting(present).sorted())")
            let acknowledged = Mutex<[String]>([])
            let prefix = "k\(round)-"
            let writer = Task {
                for i in 0..<5_000 {
                    let name = prefix + String(i)
                    guard let answer = try? await server.save([name], in: "Log", timeout: 5), answer.status == 200 else { return }
                    acknowledged.withLock { $0.append(name) }
                }
            }
            for _ in 0..<4_000 where acknowledged.withLock({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(5)) }
            server.kill9()
            kills += 1
            await writer.value
            let acked = acknowledged.withLock { $0 }
            #expect(acked.count >= 40)
            acknowledgedInAll += acked
        }
        let last = try await ServerProcess.start(data: data)
        defer { last.stop() }
        let all = Set(try await last.zoneChanges("Log").names)
        let lost = Set(acknowledgedInAll).subtracting(all)
        #expect(kills == 5)
        #expect(lost.isEmpty, "lost \(lost.count) of \(acknowledgedInAll.count) acknowledged writes")
        print("kill -9: \(kills) kills during writes, \(acknowledgedInAll.count) acknowledged writes, \(lost.count) lost")
    }

    @Test func aCleanStopLeavesEverythingInTheDatabaseFileAlone() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-clean-\(UUID().uuidString)")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data); try? FileManager.default.removeItem(at: copy) }
        let server = try await ServerProcess.start(data: data)
        try await server.createZone("Notes")
        try await server.save(["kept"], in: "Notes")
        server.stop()
        #expect(server.log.contains("stopped; state saved"), "\(server.log)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("syncscope.sqlite-wal").path))
        // Only the database file, copied elsewhere: the same state.
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: data.appendingPathComponent("syncscope.sqlite"), to: copy.appendingPathComponent("syncscope.sqlite"))
        let again = try await ServerProcess.start(data: copy)
        defer { again.stop() }
        #expect(again.log.contains("restored the checkpoint"))
        #expect(try await again.zoneChanges("Notes").names == ["kept"])
    }

    @Test(arguments: ["users.json without database", "wal without database", "deleted wal"])
    func serveRefusesADamagedDataFolderWithASentence(damage: String) async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-damaged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try await ServerProcess.start(data: data)
        try await server.createZone("Notes")
        try await server.save(["a"], in: "Notes")
        server.kill9()
        let folder = data.path
        let expected: String
        switch damage {
        case "users.json without database":
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder + "/syncscope.sqlite" + suffix) }
            expected = "holds users.json but no syncscope.sqlite"
        case "wal without database":
            try FileManager.default.removeItem(atPath: folder + "/syncscope.sqlite")
            expected = "holds syncscope.sqlite-wal but not syncscope.sqlite"
        default:
            try FileManager.default.removeItem(atPath: folder + "/syncscope.sqlite-wal")
            expected = "holds syncscope.sqlite-shm but no syncscope.sqlite-wal"
        }
        // The server must refuse to start; one that starts anyway is stopped after 60 s, and the test fails.
        let (status, output) = try await RawHTTP.offThePool { () throws -> (Int32, String) in
            let process = Process()
            process.executableURL = BinaryRunner.binaryURL
            process.arguments = ["serve", "--port", "0", "--data", folder]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        #expect(status == 1, "\(output)")
        #expect(output.contains(expected), "\(output)")
        #expect(!output.contains("new state") && !output.contains("listening"))
    }
}

@Suite struct NetworkSyncEngineTests {
    @Test func twoDeviceSyncEnginesConvergeThroughTheServerDrivenByPush() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let base = HTTPCloudService(
            baseURL: server.baseURL, webAuthToken: try #require(server.tokens["alice"]), userRecordName: "alice",
            container: ServerProcess.container)
        let phone = try await base.withNewDevice()
        let laptop = try await base.withNewDevice()
        try await phone.registerForPushNotifications()
        for result in try await phone.modifySubscriptions(in: .private, saving: [.database(DatabaseSubscription(subscriptionID: "all"))], deleting: []) {
            _ = try result.get()
        }
        let phoneEngine = DeviceSyncEngine(service: phone, store: InMemoryLocalStore(), clock: SystemClock())
        let laptopEngine = DeviceSyncEngine(service: laptop, store: InMemoryLocalStore(), clock: SystemClock())

        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        try laptopEngine.saveZone(zone)
        for (name, title) in [("n1", "Milk"), ("n2", "Bread")] {
            try laptopEngine.save(Record(recordID: RecordID(recordName: name, zoneID: zone), recordType: "Note", fields: ["title": .string(title)]))
        }
        try await laptopEngine.sendChanges()

        // The push tells the phone; its scheduled fetch brings the records.
        for notification in try await phone.waitForPushNotifications(timeout: 20) { phoneEngine.notificationReceived(notification) }
        await phoneEngine.runScheduledFetches()
        #expect(try phoneEngine.records(in: zone).map(\.recordID.recordName) == ["n1", "n2"])

        // The phone edits; the laptop fetches incrementally and converges.
        var edited = try #require(try phoneEngine.record(RecordID(recordName: "n1", zoneID: zone)))
        edited["title"] = .string("Oat milk")
        try phoneEngine.save(edited)
        try await phoneEngine.sendChanges()
        try await laptopEngine.fetchChanges()
        #expect(try laptopEngine.records(in: zone) == phoneEngine.records(in: zone))
        #expect(try laptopEngine.record(RecordID(recordName: "n1", zoneID: zone))?["title"] == .string("Oat milk"))
    }
}
