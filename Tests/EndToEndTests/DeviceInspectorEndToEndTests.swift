import Foundation
import Testing

/// `syncscope device` on a terminal: the inspector for one device of a
/// running `syncscope serve`, redrawn by the pushes that reach it.
@Suite("Device inspector end to end", .serialized)
struct DeviceInspectorEndToEndTests {
    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: the device inspector's end-to-end test needs it (apt-get install tmux)."))
    func aRecordSavedElsewhereShowsUpOnTheDevicesScreenThroughAPush() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-device-ui-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = try #require(server.tokens["alice"])
        let device = TmuxSession.syncscope(
            [
                "device", "--server", server.baseURL.absoluteString, "--user", "alice", "--name", "Mac", "--token", token, "--data", folder.path,
                "--container", ServerProcess.container, "--poll-timeout", "5",
            ], label: "device")
        let tmux = try TmuxSession(command: device, width: 110, height: 30)

        try tmux.waitFor(text: "Zones seen by Mac (alice)")
        // The header says the clock is live. A capture can catch the terminal
        // mid-frame (the zone list drawn, the header's right end not yet), so
        // the test waits for the word rather than reading the first capture.
        try tmux.waitFor(text: "live")
        try tmux.waitFor(text: "Notes")

        // Another device of alice's saves a note: the server pushes, the
        // device fetches, and its screen shows the note without a key pressed.
        try await server.save(["note-live"], in: "Notes")
        try tmux.waitFor(text: "note-live")

        // The clock is real time here: pausing does not apply, and says so.
        try tmux.send("Space")
        try tmux.waitFor(text: "do not apply")

        try tmux.send("q")
        try tmux.waitFor(text: "device exited with status 0")
    }

    /// A key never waits for the network: with the server killed, a fetch
    /// retries in the background while keys open the help and move the focus;
    /// with the server back, the retry's outcome arrives and shows.
    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: the device inspector's end-to-end test needs it (apt-get install tmux)."))
    func keysAnswerWhileTheServerIsDownAndTheFetchShowsWhenItIsBack() async throws {
        let server = try await ServerProcess.start()
        let (data, port) = (server.dataDirectory, server.port)
        defer { server.stop(); server.removeData() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-device-down-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("inspector.log")
        let token = try #require(server.tokens["alice"])
        let device = TmuxSession.syncscope(
            [
                "device", "--server", server.baseURL.absoluteString, "--user", "alice", "--name", "Mac", "--token", token,
                "--data", folder.appendingPathComponent("device").path, "--container", ServerProcess.container, "--poll-timeout", "5",
                "--log", log.path,
            ], label: "device")
        let tmux = try TmuxSession(command: device, width: 120, height: 40)
        try tmux.waitFor(text: "Zones seen by Mac (alice)")

        server.kill9()
        try tmux.send("f")
        try tmux.waitFor(text: "fetch… working")
        // The fetch is retrying against a dead server: keys still answer.
        try tmux.send("?")
        try tmux.waitFor(text: "? or Esc closes.")
        try tmux.send("Escape")
        try tmux.send("Tab")
        try tmux.waitFor(text: "╔═ Records")

        let restarted = try await ServerProcess.start(data: data, port: port)
        defer { restarted.stop() }
        // The retrying fetch gets through, or (its retries spent while the server was down) says it failed: then fetch again.
        let after = try tmux.waitFor("the fetch's outcome", seconds: 60) { $0.contains("Mac fetched:") || $0.contains("fetch failed") }
        if !after.contains("Mac fetched:") {
            try tmux.send("f")
            try tmux.waitFor(text: "Mac fetched:", seconds: 60)
        }
        try tmux.send("q")
        try tmux.waitFor(text: "device exited with status 0")

        // The log says in which order things happened: the keys before the fetch's outcome.
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let help = try #require(lines.firstIndex(of: "key ?"))
        let tab = try #require(lines.firstIndex(of: "key Tab"))
        let outcome = try #require(lines.firstIndex { $0.hasPrefix("outcome ") && ($0.contains("Mac fetched:") || $0.contains("fetch failed")) })
        #expect(help < outcome && tab < outcome, "the keys were handled while the fetch was still retrying: \(lines.suffix(30))")
    }
}
