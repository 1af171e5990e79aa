import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientChanges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Fetch which zones of a database changed since a token (changes/database).")
    @OptionGroup var options: ClientOptions
    @Option(help: "The token of your last `changes` (default: none, list every zone).") var since: String?
    @Option(help: "private or shared (the public database has no change fetching).") var database: DatabaseScope = .private

    func run() async throws {
        try await clientRun {
            let batch = try await options.service().fetchDatabaseChanges(
                in: database, since: since.map(ServerChangeToken.init(rawValue:)), resultsLimit: nil)
            for change in batch.changes {
                switch change {
                case .zoneChanged(let id): print("  changed zone \(id.zoneName) (owner \(id.ownerName))")
                case .zoneRemoved(let id, let reason): print("  removed zone \(id.zoneName) (\(reason.rawValue))")
                }
            }
            if batch.changes.isEmpty { print("  no zone changed") }
            print("new token (pass it as --since next time):\n\(batch.serverChangeToken.rawValue)")
        }
    }
}
