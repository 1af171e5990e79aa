import Foundation
import Testing

/// `syncscope serve --faults FILE.yaml` and `syncscope client faults …`: a
/// bad day turned on from a file and at run time, seen by a client.
@Suite struct CLIFaultsTests {
    @Test func serveFaultsAndClientFaultsFailItemsOfABatchAndAreListedAndCleared() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-day-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "- {kind: itemFailures, code: ZONE_BUSY, retryAfter: 2, operations: [records/modify], times: 1}\n".write(to: file, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--faults", file.path])
        defer { server.stop(); server.removeData() }
        #expect(server.log.contains("fault #1 in force: itemFailures"), "\(server.log)")
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        func client(_ arguments: [String]) throws -> BinaryRunner.Output { try BinaryRunner.run(["client"] + arguments + common) }

        #expect(try client(["create-zone", "Notes"]).status == 0)
        // The one item of the batch fails with the file's code; the next save is whole (times: 1).
        let failed = try client(["save", "Notes", "a", "title=x"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("ZONE_BUSY") && failed.stderr.contains("injected fault"), "\(failed.stderr)")
        #expect(try client(["save", "Notes", "a", "title=x"]).status == 0)

        let added = try client(["faults", "add", "--kind", "itemFailures", "--code", "QUOTA_EXCEEDED", "--times", "1"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("added rule #2"))
        let quota = try client(["save", "Notes", "b", "title=y"])
        #expect(quota.status == 1)
        #expect(quota.stderr.contains("QUOTA_EXCEEDED"), "\(quota.stderr)")

        let listed = try client(["faults", "list"])
        #expect(listed.stdout.contains("#2 itemFailures (some items failed with QUOTA_EXCEEDED)"), "\(listed.stdout)")
        #expect(listed.stdout.contains("injected so far: itemFailures 2"), "\(listed.stdout)")

        let bad = try client(["faults", "add", "--kind", "itemFailures", "--code", "NOPE"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("unknown error code 'NOPE'"), "\(bad.stderr)")

        #expect(try client(["faults", "clear"]).stdout.contains("no fault rules in force"))
        let fetched = try client(["fetch", "Notes"])
        #expect(fetched.stdout.contains("changed a") && !fetched.stdout.contains("changed b"), "\(fetched.stdout)")
        #expect(server.log.contains("[fault: some items failed with ZONE_BUSY]"), "the request log marks the faulted request")
    }
}
