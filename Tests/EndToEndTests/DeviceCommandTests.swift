import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncSimulation
import SyncWorlds
import Testing
@testable import syncscope

/// `syncscope device`'s options, errors and headless watch (the command is run in process: it is not registered yet).
@Suite struct DeviceCommandTests {
    func parse(_ arguments: [String]) throws -> DeviceCommand {
        guard let command = try DeviceCommand.parseAsRoot(arguments) as? DeviceCommand else { throw TestFailure("not a device command") }
        return command
    }

    func message(_ arguments: [String]) -> String {
        do {
            _ = try parse(arguments)
            return ""
        } catch {
            return DeviceCommand.message(for: error)
        }
    }

    @Test func badOptionsAreRefusedWithWhatToDo() {
        #expect(message(["--server", "ftp://example.com", "--user", "alice", "--name", "iPhone"]).contains("--server must be an http:// address"))
        #expect(message(["--server", "not a url", "--user", "alice", "--name", "iPhone"]).contains("got 'not a url'"))
        #expect(message(["--user", "alice"]).contains("--name"))
        #expect(message(["--user", "alice", "--name", "iPhone", "--poll-timeout", "0"]).contains("--poll-timeout"))
        #expect(message(["--user", "alice", "--name", "iPhone", "--data-of-server", "/a", "--server-data", "/b"]).contains("older name of --server-data"))
    }

    @Test func eachDeviceGetsItsOwnFolderByDefault() throws {
        let command = try parse(["--user", "alice", "--name", "Bob's iPhone", "--token", "t"])
        #expect(command.options.dataDirectory.lastPathComponent == "alice-Bob_s_iPhone")
        #expect(command.options.dataDirectory.deletingLastPathComponent().lastPathComponent == "devices")
        #expect(DeviceOptions.folderName(user: "..", device: "x/y") == "_.-x_y")
        let given = try parse(["--user", "alice", "--name", "iPhone", "--token", "t", "--data", "/tmp/phone"])
        #expect(given.options.dataDirectory.path == "/tmp/phone")
    }

    @Test func theInspectorIsTheDefaultAndHeadlessIsAFlag() throws {
        #expect(try parse(["--user", "alice", "--name", "iPhone", "--token", "t"]).headless == false)
        #expect(try parse(["--user", "alice", "--name", "iPhone", "--token", "t", "--headless"]).headless)
    }

    @Test func anUnreachableServerIsNamedInTheMessage() async throws {
        let folder = temporaryFolder("unreachable")
        defer { try? FileManager.default.removeItem(at: folder) }
        let command = try parse(["--server", "http://127.0.0.1:1", "--user", "alice", "--name", "iPhone", "--token", "t", "--data", folder.path])
        let error = await #expect(throws: DeviceCommandError.self) { _ = try await command.options.connect() }
        let text = DeviceCommand.message(for: try #require(error))
        #expect(text.contains("http://127.0.0.1:1"))
        #expect(text.contains("syncscope serve"))
    }

    @Test func theTokenComesFromTheServersUsersFileWhenNotGiven() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let folder = server.dataDirectory.path
        let alice = try parse(["--server", server.baseURL.absoluteString, "--user", "alice", "--name", "iPhone", "--data-of-server", folder])
        #expect(try alice.options.access.webAuthToken() == server.tokens["alice"])

        let carol = try parse(["--user", "carol", "--name", "iPhone", "--data-of-server", folder])
        let unknown = #expect(throws: ServerAccessError.self) { _ = try carol.options.access.webAuthToken() }
        #expect(unknown?.description.contains("has no user 'carol'; it has alice, bob") == true)

        let nowhere = try parse(["--user", "alice", "--name", "iPhone", "--data-of-server", "/nonexistent/syncscope"])
        let missing = #expect(throws: ServerAccessError.self) { _ = try nowhere.options.access.webAuthToken() }
        #expect(missing?.description.contains("--token") == true)
    }

    @Test func theWatchPrintsWhatReachesTheDeviceAndAStartAgainResumes() async throws {
        let server = try await ServerProcess.start(arguments: ["--coalescing-window", "0"])
        let folder = temporaryFolder("watch")
        defer { server.stop(); server.removeData(); try? FileManager.default.removeItem(at: folder) }
        let arguments = [
            "--server", server.baseURL.absoluteString, "--user", "alice", "--name", "iPhone", "--data", folder.path,
            "--data-of-server", server.dataDirectory.path, "--container", ServerProcess.container, "--poll-timeout", "5",
        ]
        let options = try parse(arguments).options
        let output = Output()
        let stop = StopFlag()
        let watching = Task {
            let world = try await options.connect()
            defer { world.close() }
            await DeviceWatch(world: world, seconds: 120, write: output.append, shouldStop: stop.isSet).run()
        }
        #expect(await output.waitFor("listening for pushes"))
        #expect(output.text.contains("alice's iPhone on \(server.baseURL.absoluteString)"))
        #expect(output.text.contains("no cached tokens yet"))

        // Another device of alice's makes a zone and a note; the watched device hears and fetches.
        let mac = try await server.remoteDevice("Mac")
        defer { mac.close() }
        await mac.createZone("Notes", on: mac.device)
        let note = Record(recordID: RecordID(recordName: "n1", zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice")), recordType: "Note")
        await mac.save(note, on: mac.device)
        #expect(await output.waitFor("applied 1 saved, 0 deleted in Notes"), "\(output.text)")
        #expect(output.text.contains("iPhone: push received"))
        stop.set()
        try await watching.value

        // Started again on its folder, it resumes from its tokens and says so.
        let again = Output()
        let world = try await parse(arguments).options.connect()
        await DeviceWatch(world: world, seconds: 0, write: again.append).run()
        world.close()
        #expect(again.text.contains("resumed from its cached tokens"), "\(again.text)")
        #expect(again.text.contains("Notes (owner alice): 1 record, token …"))
    }
}

extension DeviceCommandTests {
    @Test func aWatchWhoseReaderWentAwayStopsInsteadOfWatchingForNobody() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        let world = try await server.remoteDevice("iPhone")
        defer { world.close() }
        let writes = Output()
        let asked = StopFlag()
        await DeviceWatch(
            world: world, seconds: nil, write: { _ = writes.append($0); return false },
            shouldStop: { asked.set(); return true }
        ).run()
        #expect(writes.text.hasPrefix("alice's iPhone on"))
        #expect(writes.count == 1, "nothing is written after the first failed write")
        #expect(asked.isSet() == false, "the loop never started")
    }
}

/// Tells the watch to stop (cancelling a task inside URLSession can deadlock FoundationNetworking on Linux).
final class StopFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: @Sendable () -> Bool { { [self] in flag.withLock { $0 } } }
}

/// Collects what the watch prints.
final class Output: Sendable {
    private let storage = Mutex((text: "", count: 0))
    func append(_ text: String) -> Bool {
        storage.withLock { $0.text += text; $0.count += 1 }
        return true
    }
    var text: String { storage.withLock { $0.text } }
    var count: Int { storage.withLock { $0.count } }

    /// Waits (bounded) until the output contains `text`.
    func waitFor(_ text: String, limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if self.text.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return self.text.contains(text)
    }
}
