import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientReset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Empty the server (users stay; every change token issued before expires; needs the server admin token).")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await clientRun {
            try await options.adminService().resetServer()
            print("the server is empty")
        }
    }
}
