import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

struct ClientSave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save", abstract: "Save a record: syncscope client save Notes note-1 title=Hello stars=5")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Argument(help: "Record name.") var record: String
    @Argument(help: "Fields as name=value (integers become INT64, decimals DOUBLE, the rest STRING).") var fields: [String] = []
    @Option(help: "Record type.") var type = "Note"
    @Option(help: "The owner of the zone, for a zone shared with you (then the shared database is used). Default: you.") var owner: String?
    @Option(help: "private, shared or public (default: private; shared with --owner; public with --key-id).") var database: DatabaseScope?

    func validate() throws { _ = try parsedFields() }

    func parsedFields() throws -> RecordFields {
        var values = RecordFields()
        for field in fields {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("'\(field)' is not name=value (for example title=Hello).")
            }
            if let integer = Int64(parts[1]) {
                values[parts[0]] = .int64(integer)
            } else if let double = Double(parts[1]), double.isFinite, parts[1].contains(".") {
                values[parts[0]] = .double(double)
            } else {
                values[parts[0]] = .string(parts[1])
            }
        }
        return values
    }

    func run() async throws {
        let values = try parsedFields()
        let scope = database ?? (options.keyID != nil ? .public : owner == nil || owner == options.user ? .private : .shared)
        let zoneID = RecordZoneID(zoneName: zone, ownerName: scope == .public ? RecordZoneID.publicOwnerName : owner ?? options.user)
        let saved = Record(recordID: RecordID(recordName: record, zoneID: zoneID), recordType: type, fields: values)
        try await clientRun {
            for result in try await options.service().modifyRecords(
                in: scope, zoneID: zoneID, operations: [.save(saved, policy: .changedKeys)]) {
                if case .saved(let record) = try result.get() { print("saved \(describe(record))") }
            }
        }
    }
}
