import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a record.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Argument(help: "Record name.") var record: String
    @Option(help: "The owner of the zone, for a zone shared with you (then the shared database is used). Default: you.") var owner: String?

    func run() async throws {
        let scope: DatabaseScope = owner == nil || owner == options.user ? .private : .shared
        let zoneID = RecordZoneID(zoneName: zone, ownerName: owner ?? options.user)
        try await clientRun {
            for result in try await options.service().modifyRecords(
                in: scope, zoneID: zoneID, operations: [.delete(RecordID(recordName: record, zoneID: zoneID))]) {
                _ = try result.get()
                print("deleted \(record)")
            }
        }
    }
}
