import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientZones: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "zones", abstract: "List the zones of a database with their current tokens.")
    @OptionGroup var options: ClientOptions
    @Option(help: "private, shared or public.") var database: DatabaseScope = .private

    func run() async throws {
        try await clientRun {
            for zone in try await options.service().listRecordZones(in: database) {
                print("\(zone.zoneID.zoneName) (owner \(zone.zoneID.ownerName))\(zone.syncToken.map { "  token \($0.rawValue)" } ?? "")")
            }
        }
    }
}
