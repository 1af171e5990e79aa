import Foundation
import Testing

/// `syncscope schema` as a team uses it: validate a file (errors as
/// file:line:column), diff two files, and against a running server with a
/// schema from `serve --schema`: export, import, diff and deploy.
@Suite struct CLISchemaTests {
    func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func validateSaysValidOrNamesFileLineAndColumn() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try write("DEFINE SCHEMA\nRECORD TYPE Note (\n    title STRING QUERYABLE,\n    rank INT64\n);\n", "good.ckdb", in: directory)
        let valid = try BinaryRunner.run(["schema", "validate", good])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout == "\(good): valid (1 record type, 2 fields)\n")

        let bad = try write("DEFINE SCHEMA\nRECORD TYPE Note (\n    photo ASSET SORTABLE\n);\n", "bad.ckdb", in: directory)
        let invalid = try BinaryRunner.run(["schema", "validate", bad])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("\(bad):3:17: error: ASSET fields cannot be SORTABLE (they can have no index)"), "\(invalid.stderr)")
    }

    @Test func diffOfTwoFilesNamesEachChangeAndWhatADeployRefuses() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let from = try write("DEFINE SCHEMA RECORD TYPE Note (title STRING, rank INT64);", "from.ckdb", in: directory)
        let to = try write("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE, body STRING);", "to.ckdb", in: directory)
        let diff = try BinaryRunner.run(["schema", "diff", from, to])
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(diff.stdout == """
              add field Note.body STRING
              remove field Note.rank (refused by a deploy)
              change the indexes of Note.title from none to QUERYABLE

            """)
    }

    @Test func exportImportDiffAndDeployAgainstAServerStartedWithASchema() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try write("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE);", "schema.ckdb", in: directory)
        let server = try await ServerProcess.start(arguments: ["--schema", file, "--schema-container", ServerProcess.container])
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--server-data", server.dataDirectory.path, "--container", ServerProcess.container]

        // Export → import gives the same schema: the import changes nothing.
        let exported = directory.appendingPathComponent("exported.ckdb").path
        let export = try BinaryRunner.run(["schema", "export", "--output", exported] + common)
        #expect(export.status == 0, "\(export.stderr)")
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("RECORD TYPE Note (") && text.contains("title           STRING QUERYABLE"), "\(text)")
        let reimport = try BinaryRunner.run(["schema", "import", exported] + common)
        #expect(reimport.status == 0, "\(reimport.stderr)")
        #expect(reimport.stdout.contains("(no change)"), "\(reimport.stdout)")

        // A new field in development: diff names what a deploy would do; deploy does it.
        let grown = try write("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE, done INT64 QUERYABLE);", "grown.ckdb", in: directory)
        #expect(try BinaryRunner.run(["schema", "import", grown] + common).status == 0)
        let diff = try BinaryRunner.run(["schema", "diff"] + common)
        #expect(diff.stdout == "  add field Note.done INT64 QUERYABLE\n", "\(diff.stdout)\(diff.stderr)")
        let deploy = try BinaryRunner.run(["schema", "deploy"] + common)
        #expect(deploy.status == 0, "\(deploy.stderr)")
        #expect(deploy.stdout == "deployed to production:\n  add field Note.done INT64 QUERYABLE\n")
        #expect(try BinaryRunner.run(["schema", "diff"] + common).stdout == "no change\n")

        // Taking the field away again cannot reach production: the import into development is refused, naming it.
        let refused = try BinaryRunner.run(["schema", "import", file] + common)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("BAD_REQUEST: Cannot deploy: it would remove field Note.done"), "\(refused.stderr)")
    }
}
