import Foundation
import Testing

@Suite struct NetworkClientCommandTests {
    @Test func theClientSubcommandsOfTheReadmeDemoWork() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        func client(_ arguments: [String]) throws -> BinaryRunner.Output {
            let output = try BinaryRunner.run(["client"] + arguments + common)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            return output
        }
        #expect(try client(["create-zone", "Notes"]).stdout.contains("created zone Notes"))
        #expect(try client(["save", "Notes", "note-1", "title=Buy milk", "stars=3"]).stdout.contains(#"stars=3 title="Buy milk""#))
        let first = try client(["fetch", "Notes"])
        #expect(first.stdout.contains("changed note-1"))
        let token = try #require(first.stdout.split(separator: "\n").last.map(String.init))
        try _ = client(["save", "Notes", "note-2", "title=Call Bob"])
        let second = try client(["fetch", "Notes", "--since", token])
        #expect(second.stdout.contains("changed note-2") && !second.stdout.contains("note-1"))
        #expect(try client(["changes"]).stdout.contains("changed zone Notes"))

        // A mistake is one readable line and a failing status, not a crash.
        let bad = try BinaryRunner.run(["client", "fetch", "Notes", "--since", "garbage"] + common)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("BAD_REQUEST"))
    }
}
