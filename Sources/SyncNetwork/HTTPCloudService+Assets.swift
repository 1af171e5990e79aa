import Foundation
import SyncCore
import SyncWire

extension HTTPCloudService {
    /// Uploads a file the way CloudKit Web Services does: `assets/upload`
    /// for an upload URL, then the bytes POSTed to that URL. Returns the
    /// value for an `ASSET` field (checksum and size).
    public func uploadAsset(
        _ data: Data, in scope: DatabaseScope, zoneID: RecordZoneID, recordType: String, fieldName: String, recordName: String? = nil
    ) async throws -> AssetDescriptor {
        let request = WireAssetsUploadRequest(
            zoneID: WireZoneID(zoneID), tokens: [.init(recordName: recordName, recordType: recordType, fieldName: fieldName)])
        let answer: WireAssetsUploadResponse = try await send("POST", databasePath(scope, "assets/upload"), request)
        guard let url = answer.tokens.first.flatMap({ URL(string: $0.url) }) else {
            throw CloudError(.internalError, "The server's assets/upload answer has no upload URL.")
        }
        let body = try await sendRaw("POST", "", body: data, absolute: url)
        let receipt = try WireJSON.decode(WireAssetUploadReceipt.self, from: body)
        return AssetDescriptor(fileChecksum: receipt.singleFile.fileChecksum, size: receipt.singleFile.size)
    }
}
