import ArgumentParser
import Foundation
import SyncCore
import SyncNetwork

/// `syncscope client upload FILE`: assets/upload, then the bytes to the upload URL.
struct ClientUpload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload a file as an asset: syncscope client upload photo.jpg --zone Notes --record n1 --field photo",
        discussion: """
            Asks the server for an upload URL (assets/upload), sends the file there, and prints the receipt \
            (checksum and size). With --record, it then saves that record's --field as the ASSET; fetches of the \
            record carry a downloadURL the server serves.
            """)
    @OptionGroup var options: ClientOptions
    @Argument(help: "The file to upload.") var file: String
    @Option(help: "Zone name.") var zone: String = RecordZoneID.defaultZoneName
    @Option(help: "The record to attach the asset to (saved with the new field; other fields are kept).") var record: String?
    @Option(help: "The ASSET field's name.") var field = "file"
    @Option(help: "Record type.") var type = "Note"

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ValidationError("Cannot read '\(file)': \(error.localizedDescription)")
        }
        let zoneID = RecordZoneID(zoneName: zone, ownerName: options.user)
        try await clientRun {
            let service = try options.service()
            let asset = try await service.uploadAsset(data, in: .private, zoneID: zoneID, recordType: type, fieldName: field, recordName: record)
            print("uploaded \(url.lastPathComponent): \(asset.size) bytes, checksum \(asset.fileChecksum)")
            if let record {
                let saved = Record(recordID: RecordID(recordName: record, zoneID: zoneID), recordType: type, fields: [field: .asset(asset)])
                for result in try await service.modifyRecords(in: .private, zoneID: zoneID, operations: [.save(saved, policy: .changedKeys)]) {
                    if case .saved(let record) = try result.get() { print("saved \(describe(record))") }
                }
            }
        }
    }
}
