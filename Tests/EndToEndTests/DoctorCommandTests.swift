import Foundation
import Testing

/// `syncscope doctor` against the built `syncscope serve`: one line (or JSON
/// object) per diagnosis, and exit status 1 with `--fail-on` when one is found.
@Suite struct DoctorCommandTests {
    @Test func theDoctorNamesAMistakeAndFailsCIOnlyWhenAskedTo() async throws {
        let server = try await ServerProcess.start()
        defer {
            server.stop()
            server.removeData()
        }
        let zone = ["zoneID": ["zoneName": "Notes"]]
        try await server.call(server.db("private", "zones/modify"), ["operations": [["operationType": "create", "zone": zone]]])
        // A correct client: from no token once, then from its token.
        let first = try await server.call(server.db("private", "changes/zone"), ["zones": [zone]])
        let token = (first.list("zones").first?["syncToken"] as? String) ?? ""
        try await server.call(server.db("private", "changes/zone"), ["zones": [["zoneID": ["zoneName": "Notes"], "syncToken": token]]])
        let address = server.baseURL.absoluteString
        let clean = try BinaryRunner.run(["doctor", "--server", address, "--admin-token", server.adminToken, "--fail-on", "warning"])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(clean.stdout.hasPrefix("No client mistakes found"), "\(clean.stdout)")

        // The same client forgets its token: three fetches of Notes from no token.
        for _ in 0..<2 { try await server.call(server.db("private", "changes/zone"), ["zones": [zone]]) }
        let found = try BinaryRunner.run(["doctor", "--server", address, "--admin-token", server.adminToken, "--json", "--fail-on", "warning"])
        #expect(found.status == 1, "\(found.stdout)\(found.stderr)")
        let lines = found.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(found.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["code"] as? String == "tokenNotCached" && object["severity"] as? String == "warning" && object["user"] as? String == "alice")
        #expect((object["evidence"] as? [Any])?.count == 2 && (object["lesson"] as? String) == "01-first-fetch" && object["summary"] is String)
        #expect(object["client"] as? String != nil)
        // A warning does not fail a CI that fails on errors only; the text form is one line.
        let lenient = try BinaryRunner.run(["doctor", "--server", address, "--admin-token", server.adminToken, "--fail-on", "error"])
        #expect(lenient.status == 0 && lenient.stdout.hasPrefix("warning tokenNotCached"), "\(lenient.stdout)")
        // Without the admin token: a failure of its own (status 2), not a finding.
        let refused = try BinaryRunner.run(["doctor", "--server", address, "--admin-token", "wrong"])
        #expect(refused.status == 2 && refused.stderr.contains("admin token"), "\(refused.stderr)")
    }
}
