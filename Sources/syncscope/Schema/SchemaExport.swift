import ArgumentParser
import Foundation

struct SchemaExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print (or save) one environment's schema in CloudKit's schema language (needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Option(help: "Write to this file instead of printing.") var output: String?

    func run() async throws {
        try await clientRun {
            let text = try await options.adminService().schema().schema
            if let output {
                do { try Data(text.utf8).write(to: URL(fileURLWithPath: output)) } catch {
                    throw ClientFailure("Cannot write \(output): \((error as NSError).localizedDescription)")
                }
                print("wrote the \(options.access.environment.rawValue) schema to \(output)")
            } else {
                print(text, terminator: "")
            }
        }
    }
}
