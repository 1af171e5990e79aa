import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Replace the server's whole state with an exported file (every change token issued before expires; users keep their web auth tokens; needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A file written by `client export`.") var file: String

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw ClientFailure("Cannot read \(file): \(error.localizedDescription)") }
        try await clientRun {
            try await options.adminService().importServerState(data)
            print("imported \(file)")
        }
    }
}
