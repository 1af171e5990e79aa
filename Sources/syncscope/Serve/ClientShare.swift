import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientShare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "share", abstract: "Share one of your zones with other users.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Argument(help: "Users to share with.") var participants: [String]

    func run() async throws {
        try await clientRun {
            try await options.service().shareZone(RecordZoneID(zoneName: zone, ownerName: options.user), with: participants)
            print("shared \(zone) with \(participants.joined(separator: ", "))")
        }
    }
}
