import ArgumentParser
import Foundation

struct SchemaDeploy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Copy the development schema to production, refusing to remove a deployed type, field or role or to change a field's type (needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Flag(name: .customLong("dry-run"), help: "Only say what a deploy would change.") var dryRun = false

    func run() async throws {
        try await clientRun {
            let answer = try await options.adminService().deploySchema(dryRun: dryRun)
            print(dryRun ? "a deploy to production would:" : "deployed to production:")
            print(SchemaFile.describe(answer.changes ?? [], none: "  (no change: production has the development schema)"))
        }
    }
}
