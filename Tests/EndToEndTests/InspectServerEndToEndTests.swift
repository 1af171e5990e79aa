import Foundation
import Testing

/// `syncscope inspect --server` on a terminal: the inspector watching a
/// running `syncscope serve`, its clients live, until the person quits.
@Suite("Inspect a server end to end", .serialized)
struct InspectServerEndToEndTests {
    /// The inspector opens the terminal before its first read of the server:
    /// curses must stay on the thread that opened it through every frame
    /// (it once started on another and stopped with a crash at the first frame).
    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: the server inspector's end-to-end test needs it (apt-get install tmux)."))
    func aClientsSaveShowsLiveAndQuitGivesTheTerminalBack() async throws {
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let inspect = TmuxSession.syncscope(
            ["inspect", "--server", server.baseURL.absoluteString, "--admin-token", server.adminToken, "--container", ServerProcess.container],
            label: "inspect")
        let tmux = try TmuxSession(command: inspect, width: 120, height: 40)

        try tmux.waitFor(text: "a server, live")
        try tmux.waitFor(text: "╔═ Clients")
        // A save made now reaches the open inspector through the feed's long-poll.
        try await server.save(["note-live"], in: "Notes")
        try tmux.waitFor("the save counted on alice's client") { $0.contains("alice") && $0.contains("records/modify") }

        try tmux.send("q")
        try tmux.waitFor(text: "inspect exited with status 0")
    }
}
