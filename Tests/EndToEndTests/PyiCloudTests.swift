import Foundation
import Testing

/// A real client written for Apple's servers — Python's `pyicloud`, its own
/// CloudKit request and parsing code — against the built `syncscope serve`,
/// with only its base URL and its authentication replaced (see
/// `PyiCloud/pyicloud_e2e.py`).
///
/// The Python with pyicloud is `SYNCSCOPE_PYICLOUD_PYTHON`, or the package's
/// `.build-venv/bin/python`, which `.ci/run` creates (pinned pyicloud). On a
/// machine without it the test is disabled, except under `CI=true`, where a
/// missing client is a failure, never a skip.
@Suite struct PyiCloudTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PyiCloud/pyicloud_e2e.py")

    static var python: URL? {
        if let path = ProcessInfo.processInfo.environment["SYNCSCOPE_PYICLOUD_PYTHON"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let venv = packageRoot.appendingPathComponent(".build-venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : nil
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" }

    @Test(.enabled(if: python != nil || isCI, "pyicloud is not installed: run .ci/run, or python3 -m venv .build-venv && .build-venv/bin/pip install pyicloud"))
    func pyicloudRunsUnchangedAgainstTheServer() async throws {
        let python = try #require(Self.python, "CI=true but no Python with pyicloud: .ci/run should have created .build-venv")
        let server = try await ServerProcess.start()
        defer {
            server.stop()
            server.removeData()
        }
        let token = try #require(server.tokens["alice"])
        // Its Reminders and Notes run in production, which takes only what was deployed:
        // import their schemas as a team would (`syncscope schema import`).
        for (container, file) in [("com.apple.reminders", "reminders.ckdb"), ("com.apple.notes", "notes.ckdb")] {
            let schema = Self.script.deletingLastPathComponent().appendingPathComponent(file).path
            let imported = try BinaryRunner.run([
                "schema", "import", schema, "--server", server.baseURL.absoluteString, "--admin-token", server.adminToken,
                "--container", container, "--environment", "production",
            ])
            #expect(imported.status == 0, "importing \(file): \(imported.stderr)")
        }
        let run = try await ExternalTool(executable: python, arguments: [Self.script.path, server.baseURL.absoluteString, token]).run(within: 180)
        let text = run.text
        guard let status = run.status else {
            Issue.record("pyicloud did not finish within 180 s:\n\(text)")
            return
        }
        #expect(status == 0, "pyicloud against syncscope serve:\n\(text)\nserver log:\n\(server.log)")
        #expect(text.contains(" passed, 0 failed"), "\(text)")
        // Every area the script covers ran.
        for area in ["records/modify", "records/lookup", "records/query pages", "getCurrentSyncToken", "tombstones", "desiredRecordTypes", "zones/list", "Reminders:", "Notes:"] {
            #expect(text.contains(area), "no check about \(area) ran:\n\(text)")
        }
        // A client that behaves makes no mistake the doctor names: a diagnosis here is a false positive.
        let doctor = try BinaryRunner.run(["doctor", "--server", server.baseURL.absoluteString, "--admin-token", server.adminToken, "--json", "--fail-on", "warning"])
        #expect(doctor.status == 0 && doctor.stdout.isEmpty, "syncscope doctor named mistakes of pyicloud:\n\(doctor.stdout)\(doctor.stderr)")
    }
}
