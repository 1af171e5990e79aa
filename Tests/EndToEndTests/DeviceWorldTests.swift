import Foundation
import SyncCore
import SyncRemoteWorld
import SyncSimulation
import SyncWorlds
import Testing

/// The world's harness over HTTP: devices of `syncscope device` against the built server.
@Suite struct DeviceWorldTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    func note(_ name: String, _ title: String = "hello") -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: notes), recordType: "Note", fields: ["title": .string(title)])
    }

    func names(_ world: RemoteWorld) -> [String] {
        world.device.cachedRecords(in: notes).map(\.recordID.recordName)
    }

    @Test func aSaveOnOneRemoteDeviceReachesAnotherThroughItsLongPollAndFetch() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let phone = try await server.remoteDevice("iPhone")
        let mac = try await server.remoteDevice("Mac")
        defer { phone.close(); mac.close() }
        #expect(!phone.isVirtualTime && !mac.isVirtualTime)
        #expect(phone.device.deviceID != mac.device.deviceID)

        #expect(await phone.createZone("Notes", on: phone.device).error == nil)
        #expect(await phone.save(note("n1", "Milk"), on: phone.device).error == nil)
        #expect(await mac.tick { self.names($0) == ["n1"] }, "the Mac never got n1: \(mac.events.suffix(10))")

        // The data came from a fetch a push scheduled.
        let received = try #require(mac.device.notifications.last)
        #expect(received.fetchRunID != nil)
        // The push says when the server queued it: the latency is measured, not a 0.
        #expect(received.latencyIsKnown)
        #expect(received.latency >= 0 && received.latency < 60_000, "\(received.latency) ms")
        #expect(mac.events.contains { if case .pushReceived = $0.kind { true } else { false } })
        #expect(mac.device.cachedRecords(in: notes).first?["title"] == .string("Milk"))

        // Edits go the other way the same.
        var edited = try #require(mac.device.cachedRecords(in: notes).first)
        edited["title"] = .string("Oat milk")
        #expect(await mac.save(edited, on: mac.device).error == nil)
        #expect(await phone.tick { $0.device.cachedRecords(in: self.notes).first?["title"] == .string("Oat milk") })

        // The observer sees the server through the API.
        let summary = try await mac.serverObserver.zoneSummaries(user: "alice", environment: .development).first { $0.zoneID == notes }
        #expect(summary?.recordCount == 1)
        #expect(summary?.lastSequence == nil)
        #expect(mac.serverObserver.seesServerInternals == false)
    }

    @Test func anOfflineRemoteDeviceStopsListeningAndCatchesUpWhenBack() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let phone = try await server.remoteDevice("iPhone")
        let mac = try await server.remoteDevice("Mac")
        defer { phone.close(); mac.close() }
        await phone.createZone("Notes", on: phone.device)
        await mac.setOnline(false, device: mac.device)
        #expect(mac.pushStatus == .offline)
        // Offline, its changes wait in its cache.
        #expect(await mac.save(note("from-mac"), on: mac.device).error == nil)
        #expect(mac.device.pendingChangeCount == 1)
        await phone.save(note("n1"), on: phone.device)
        await mac.advance(by: 0)
        #expect(names(mac).contains("n1") == false)

        await mac.setOnline(true, device: mac.device)
        #expect(mac.pushStatus == .listening)
        #expect(names(mac) == ["from-mac", "n1"])
        #expect(mac.device.pendingChangeCount == 0)
        #expect(await phone.tick { self.names($0) == ["from-mac", "n1"] })
    }

    @Test func aDeviceStartedAgainOnItsDataFolderResumesFromItsCachedTokens() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        let folder = temporaryFolder("device")
        defer { server.stop(); server.removeData(); try? FileManager.default.removeItem(at: folder) }

        let first = try await server.remoteDevice("iPhone", data: folder)
        #expect(!first.resumedFromCache)
        await first.createZone("Notes", on: first.device)
        await first.save(note("n1"), on: first.device)
        await first.save(note("n2"), on: first.device)
        await first.fetch(on: first.device)
        let deviceID = first.device.deviceID
        let cachedToken = try #require(first.device.cachedZoneToken(for: notes))
        first.close()

        // While it is stopped, another device changes the zone.
        let mac = try await server.remoteDevice("Mac")
        defer { mac.close() }
        await mac.fetch(on: mac.device)
        await mac.save(note("n3"), on: mac.device)

        let log = FetchLog()
        let again = try await server.remoteDevice("iPhone", data: folder, log: log)
        defer { again.close() }
        #expect(again.resumedFromCache)
        #expect(again.device.deviceID == deviceID, "the device keeps the ID the server knows it by")
        #expect(names(again) == ["n1", "n2", "n3"])
        // Its first fetch started from the cached tokens and brought only what changed.
        #expect(log.databaseFetchTokens.first != nil && log.databaseFetchTokens.first! != nil)
        let notesFetches = log.zoneFetches.filter { $0.zoneName == "Notes" }
        #expect(notesFetches == [FetchLog.ZoneFetch(zoneName: "Notes", fromToken: cachedToken, changes: ["n3"])])
    }

    @Test func aFreshCacheForgetsTheTokensButKeepsTheDeviceID() async throws {
        let server = try await ServerProcess.start()
        let folder = temporaryFolder("fresh")
        defer { server.stop(); server.removeData(); try? FileManager.default.removeItem(at: folder) }
        let first = try await server.remoteDevice("iPhone", data: folder)
        await first.createZone("Notes", on: first.device)
        await first.save(note("n1"), on: first.device)
        await first.fetch(on: first.device)
        let deviceID = first.device.deviceID
        first.close()

        let log = FetchLog()
        let fresh = try await RemoteWorld.connect(RemoteDeviceSetup(
            serverURL: server.baseURL, webAuthToken: try #require(server.tokens["alice"]), user: "alice", name: "iPhone",
            dataDirectory: folder, container: ServerProcess.container, freshCache: true, pollTimeout: 5, connectionWrapper: log.wrapper))
        defer { fresh.close() }
        #expect(!fresh.resumedFromCache)
        #expect(fresh.device.deviceID == deviceID)
        #expect(log.zoneFetches.filter { $0.zoneName == "Notes" }.map(\.fromToken) == [nil])
        #expect(names(fresh) == ["n1"])
    }

    @Test func aDeviceWhoseServerRestartsSaysSoThenHearsAgainAndCatchesUp() async throws {
        let folder = temporaryFolder("restart")
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await ServerProcess.start(data: folder, arguments: ["--coalescing-window", "0"])
        let phone = try await first.remoteDevice("iPhone")
        defer { phone.close() }
        await phone.createZone("Notes", on: phone.device)
        first.stop()
        #expect(await phone.tick { if case .failing = $0.pushStatus { true } else { false } })
        #expect(phone.events.contains { if case .failed(let action, _) = $0.kind { action == "push long-poll" } else { false } })

        let second = try await ServerProcess.start(data: folder, arguments: ["--coalescing-window", "0"], port: first.port)
        defer { second.stop() }
        let mac = try await second.remoteDevice("Mac")
        defer { mac.close() }
        await mac.save(note("n1"), on: mac.device)
        #expect(await phone.tick { $0.pushStatus == .listening && self.names($0) == ["n1"] }, "\(phone.events.suffix(8))")
    }

    // MARK: Errors a person understands

    @Test func anUnreachableServerIsNamedInTheError() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:1"))
        let error = await #expect(throws: CloudError.self) {
            _ = try await RemoteWorld(setup: RemoteDeviceSetup(serverURL: url, webAuthToken: "x", user: "alice", name: "iPhone"))
        }
        #expect(error?.code == .networkFailure)
        #expect(error?.reason.contains("http://127.0.0.1:1") == true)
        #expect(error?.reason.contains("syncscope serve") == true)
    }

    @Test func aWrongTokenOrAnotherUsersFolderIsRefusedWithAReason() async throws {
        let server = try await ServerProcess.start()
        let folder = temporaryFolder("owner")
        defer { server.stop(); server.removeData(); try? FileManager.default.removeItem(at: folder) }
        let wrong = await #expect(throws: CloudError.self) {
            _ = try await RemoteWorld(setup: RemoteDeviceSetup(
                serverURL: server.baseURL, webAuthToken: "not-a-token", user: "alice", name: "iPhone", container: ServerProcess.container))
        }
        #expect(wrong?.code == .authenticationFailed)
        #expect(wrong?.reason.contains("'alice'") == true)
        let bobs = await #expect(throws: CloudError.self) {
            _ = try await RemoteWorld(setup: RemoteDeviceSetup(
                serverURL: server.baseURL, webAuthToken: try #require(server.tokens["bob"]), user: "alice", name: "iPhone",
                container: ServerProcess.container))
        }
        #expect(bobs?.reason.contains("is bob's") == true)

        try await server.remoteDevice("iPhone", data: folder).close()
        let taken = await #expect(throws: CloudError.self) {
            _ = try await server.remoteDevice("iPad", user: "bob", data: folder)
        }
        #expect(taken?.code == .invalidArguments)
        #expect(taken?.reason.contains("alice's device 'iPhone'") == true)
    }

    @Test func aCacheFromAnotherServerIsRefusedRatherThanFailingEveryFetch() async throws {
        let folder = temporaryFolder("foreign")
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await ServerProcess.start()
        let device = try await first.remoteDevice("iPhone", data: folder)
        await device.createZone("Notes", on: device.device)
        await device.fetch(on: device.device)
        device.close()
        first.stop()
        first.removeData()

        let other = try await ServerProcess.start(arguments: ["--seed", "8"])
        defer { other.stop(); other.removeData() }
        let error = await #expect(throws: CloudError.self) { _ = try await other.remoteDevice("iPhone", data: folder) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains("does not accept") == true)
        #expect(error?.reason.contains(folder.path) == true)
    }
}
