import Foundation
import Testing

/// `schemathesis` (a property-based API tester) against the built
/// `syncscope serve`, with the OpenAPI document the server itself serves at
/// `/openapi.json`: generated requests on every route, good and malformed,
/// and no answer may be a server error (5xx) or differ from the document
/// (an undocumented status, content type or body shape).
///
/// schemathesis is `SYNCSCOPE_SCHEMATHESIS`, or the package's
/// `.build-venv/bin/schemathesis`, which `.ci/run` installs (pinned). On a
/// machine without it the test is disabled, except under `CI=true`, where a
/// missing tool is a failure, never a skip.
@Suite struct SchemathesisTests {
    static var schemathesis: URL? {
        if let path = ProcessInfo.processInfo.environment["SYNCSCOPE_SCHEMATHESIS"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let venv = PyiCloudTests.packageRoot.appendingPathComponent(".build-venv/bin/schemathesis")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : nil
    }

    @Test(.enabled(
        if: schemathesis != nil || PyiCloudTests.isCI,
        "schemathesis is not installed: run .ci/run, or python3 -m venv .build-venv && .build-venv/bin/pip install schemathesis"))
    func theServerAnswersAsItsOpenAPIDocumentSays() async throws {
        let schemathesis = try #require(Self.schemathesis, "CI=true but no schemathesis: .ci/run should have installed it into .build-venv")
        let server = try await ServerProcess.start()
        defer {
            server.stop()
            server.removeData()
        }
        let token = try #require(server.tokens["alice"])
        // The document the server serves, and how many operations it names.
        let document = try await server.call("/openapi.json", user: nil)
        #expect(document.status == 200 && (document.json["openapi"] as? String)?.hasPrefix("3.1.") == true, "\(document.json)")
        let operations = (document.json["paths"] as? [String: [String: Any]] ?? [:]).values.reduce(0) { $0 + $1.count }
        #expect(operations >= 40)
        var environment = ProcessInfo.processInfo.environment
        environment["SCHEMATHESIS_TELEMETRY"] = "false"
        let tool = ExternalTool(
            executable: schemathesis,
            arguments: [
                "run", "\(server.baseURL.absoluteString)/openapi.json",
                "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,unsupported_method",
                "--header", "Authorization: Bearer \(token)",
                // Not the stateful phase: it chains tokens/create into real long-polls, which wait out their timeout by design.
                "--phases", "examples,coverage,fuzzing",
                "--max-examples", "12", "--max-time", "60", "--seed", "1", "--workers", "1", "--request-timeout", "20", "--no-color",
            ],
            // No telemetry; whatever it writes goes into the throwaway data folder, not the package.
            environment: environment, directory: server.dataDirectory)
        let run = try await tool.run(within: 110)
        let text = run.text
        guard let status = run.status else {
            Issue.record("schemathesis did not finish within 110 s:\n\(text)")
            return
        }
        #expect(status == 0, "schemathesis against syncscope serve:\n\(text)\nserver log:\n\(server.log.suffix(20_000))")
        // It tested every operation of the document, and no case failed.
        // (Loaded from the server, schemathesis leaves out the document's own GET /openapi.json.)
        let tested = text.firstMatch(of: /Tested: ([0-9]+)/).flatMap { Int($0.1) } ?? 0
        #expect(tested >= operations - 1, "schemathesis tested \(tested) of \(operations) operations:\n\(text)")
        #expect(text.range(of: #"[0-9]+ generated, [0-9]+ passed\n"#, options: .regularExpression) != nil, "\(text)")
    }
}
