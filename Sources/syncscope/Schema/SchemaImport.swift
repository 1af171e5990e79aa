import ArgumentParser
import Foundation

struct SchemaImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Replace one environment's schema with a schema file; refused if production would lose a type, field or role (needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The schema file.") var file: String

    func run() async throws {
        _ = try SchemaFile.parse(file)
        let text = try SchemaFile.text(file)
        try await clientRun {
            let answer = try await options.adminService().importSchema(text)
            print("imported \(file) into \(options.access.environment.rawValue):")
            print(SchemaFile.describe(answer.changes ?? [], none: "  (no change)"))
        }
    }
}
