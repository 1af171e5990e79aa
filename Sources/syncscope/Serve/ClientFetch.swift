import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientFetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Fetch a zone's changes since a token (none: everything), and print the new token.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Option(help: "The token of your last fetch (default: none, fetch everything).") var since: String?
    @Option(help: "The owner of the zone, for a zone shared with you. Default: you.") var owner: String?
    @Option(name: .customLong("results-limit"), parsing: .unconditional, help: "Entries per batch (default: the server's limit). The command fetches every batch.")
    var resultsLimit: Int?

    func validate() throws {
        if let resultsLimit, resultsLimit < 1 { throw ValidationError("--results-limit must be at least 1 (got \(resultsLimit)).") }
    }

    func run() async throws {
        let scope: DatabaseScope = owner == nil || owner == options.user ? .private : .shared
        let zoneID = RecordZoneID(zoneName: zone, ownerName: owner ?? options.user)
        var token = since.map(ServerChangeToken.init(rawValue:))
        print(token == nil ? "fetching \(zone) with NO token (everything)" : "fetching \(zone) since \(token?.description ?? "")")
        try await clientRun {
            let service = try options.service()
            var batches = 0
            while true {
                let batch = try await service.fetchRecordZoneChanges(
                    in: scope, [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token, resultsLimit: resultsLimit)])[0].get()
                batches += 1
                for change in batch.changes {
                    switch change {
                    case .changed(let record): print("  changed \(describe(record))")
                    // The server sends no type with a deletion (as CloudKit does); this client keeps no cache to tell it.
                    case .deleted(let id, let type): print("  deleted \(id.recordName)\(type.isEmpty ? "" : " (\(type))")")
                    }
                }
                token = batch.serverChangeToken
                if !batch.moreComing || batches >= 10_000 { break }
                print("  … moreComing, next batch")
            }
            print("new token (pass it as --since next time):\n\(token?.rawValue ?? "")")
        }
    }
}
