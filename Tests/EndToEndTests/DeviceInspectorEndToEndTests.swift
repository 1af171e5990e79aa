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
        let binary = BinaryRunner.binaryURL.path
        let device = [
            "LC_ALL=C.UTF-8", TmuxSession.quote(binary), "device", "--server", server.baseURL.absoluteString, "--user", "alice",
            "--name", "Mac", "--token", TmuxSession.quote(token), "--data", TmuxSession.quote(folder.path),
            "--container", ServerProcess.container, "--poll-timeout", "5",
        ].joined(separator: " ")
        let tmux = try TmuxSession(
            command: "\(device); echo \"device exited with status $?\"; sleep 60", width: 110, height: 30)

        let first = try tmux.waitFor(text: "Zones seen by Mac (alice)")
        #expect(first.contains("live"))
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
}
