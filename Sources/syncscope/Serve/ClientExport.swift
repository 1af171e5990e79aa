import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print (or save) the server's whole state as JSON, without web auth tokens (needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Option(help: "Write to this file instead of printing.") var output: String?

    func run() async throws {
        try await clientRun {
            let data = try await options.adminService().exportServerState()
            if let output {
                do { try data.write(to: URL(fileURLWithPath: output)) } catch {
                    throw ClientFailure("Cannot write \(output): \((error as NSError).localizedDescription)")
                }
                print("wrote \(data.count) bytes to \(output)")
            } else {
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }
}
