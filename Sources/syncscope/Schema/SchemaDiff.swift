import ArgumentParser
import Foundation
import SyncCore

struct SchemaDiff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What would change: with no file, what a deploy would do to production; with one, what importing it into --environment would do; with two, from the first to the second.",
        discussion: "Changes a deploy refuses (they would lose production data) are marked 'refused by a deploy'.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Schema files: none, one (the server's --environment to it) or two (from, to).") var files: [String] = []

    func validate() throws {
        guard files.count <= 2 else { throw ValidationError("diff takes at most two schema files (from, to).") }
    }

    func run() async throws {
        let from: ContainerSchema
        let to: ContainerSchema
        switch files.count {
        case 2:
            from = try SchemaFile.parse(files[0])
            to = try SchemaFile.parse(files[1])
        case 1:
            to = try SchemaFile.parse(files[0])
            from = try await server(options.access.environment)
        default:
            from = try await server(.production)
            to = try await server(.development)
        }
        let changes = from.changes(to: to)
        print(SchemaFile.describe(changes.map { $0.losesData ? "\($0) (refused by a deploy)" : $0.description }, none: "no change"))
    }

    private func server(_ environment: ContainerEnvironment) async throws -> ContainerSchema {
        var text = ""
        try await clientRun { text = try await options.adminService().schema(in: environment).schema }
        do { return try SchemaLanguage.parse(text) } catch { throw ClientFailure("The server's \(environment.rawValue) schema does not parse: \(error)") }
    }
}
