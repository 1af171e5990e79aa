import ArgumentParser
import Foundation
import SyncCore

struct SchemaValidate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check a schema file without a server; problems are printed as file:line:column.")
    @Argument(help: "The schema file.") var file: String

    func run() throws {
        let schema = try SchemaFile.parse(file)
        let fields = schema.recordTypes.values.reduce(0) { $0 + $1.fields.count }
        print("\(file): valid (\(schema.recordTypes.count) record type\(schema.recordTypes.count == 1 ? "" : "s"), \(fields) field\(fields == 1 ? "" : "s"))")
    }
}
