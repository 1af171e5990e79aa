import Foundation
import Testing

/// `syncscope inspect --server` as a person first meets it: whatever is wrong
/// (the token, the address, the terminal, the options) is said in a sentence
/// that names the way out, before any screen.
@Suite struct InspectServerCommandTests {
    @Test func eachWrongStartSaysWhatToDoInstead() async throws {
        let server = try await ServerProcess.start()
        defer {
            server.stop()
            server.removeData()
        }
        let address = server.baseURL.absoluteString
        // A user's token is not the admin token.
        let userToken = try #require(server.tokens["alice"])
        let wrong = try BinaryRunner.run(["inspect", "--server", address, "--admin-token", userToken])
        #expect(wrong.status == 1, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("does not take this admin token") && wrong.stderr.contains("--admin-token"), "\(wrong.stderr)")
        // Nothing listens there.
        let nowhere = try BinaryRunner.run(["inspect", "--server", "http://127.0.0.1:1", "--admin-token", server.adminToken])
        #expect(nowhere.status == 1 && nowhere.stderr.contains("Cannot reach the SyncScope server at http://127.0.0.1:1"), "\(nowhere.stderr)")
        // No token given, and a data folder without admin.json.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-no-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let missing = try BinaryRunner.run(["inspect", "--server", address, "--server-data", empty.path])
        #expect(missing.status == 2 && missing.stderr.contains("admin.json cannot be read"), "\(missing.stderr)")
        // The server's own data folder has the token: all is right but the terminal, which says what to run instead.
        let noTerminal = try BinaryRunner.run(["inspect", "--server", address, "--server-data", server.dataDirectory.path])
        #expect(noTerminal.status == 2 && noTerminal.stderr.contains("syncscope doctor --server \(address)"), "\(noTerminal.stderr)")
        // The admin options without a server to watch.
        let stray = try BinaryRunner.run(["inspect", "--admin-token", server.adminToken])
        #expect(stray.status != 0 && stray.stderr.contains("go with --server"), "\(stray.stderr)")
        // Nor a container to show without one.
        let strayContainer = try BinaryRunner.run(["inspect", "--container", "com.apple.notes"])
        #expect(strayContainer.status != 0 && strayContainer.stderr.contains("--container and --environment go with --server"), "\(strayContainer.stderr)")
    }
}
