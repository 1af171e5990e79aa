import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Talk to a running `syncscope serve` as one user: zones, saves, queries, change fetches, push.",
        subcommands: [
            ClientZones.self, ClientCreateZone.self, ClientSave.self, ClientDelete.self, ClientFetch.self, ClientQuery.self, ClientUpload.self, ClientChanges.self,
            ClientWatch.self, ClientShare.self, ClientExport.self, ClientImport.self, ClientReset.self,
            ClientFaults.self,
        ]
    )
}

/// Runs a client call, printing a CloudError as its reason rather than a stack of types.
func clientRun(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CloudError {
        throw ClientFailure(error)
    }
}

func describe(_ record: Record) -> String {
    let fields = record.fields.map { " \($0.name)=\($0.value.displayString)" }.joined()
    return "\(record.recordID.recordName) (\(record.recordType), tag \(record.recordChangeTag ?? "-"))\(fields)"
}

extension DatabaseScope: ExpressibleByArgument {}
