import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientCreateZone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create-zone", abstract: "Create a zone in your private database.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String

    func run() async throws {
        try await clientRun {
            for result in try await options.service().modifyRecordZones(
                in: .private, saving: [RecordZoneID(zoneName: zone, ownerName: options.user)], deleting: []) {
                print("created zone \(try result.get().zoneID.zoneName)")
            }
        }
    }
}
