import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Assets: `assets/upload` hands out an upload URL this server serves; the
/// bytes POSTed there are kept (journaled, checkpointed, exported) and
/// answered with a receipt for an `ASSET` field; fetched `ASSET` fields carry
/// a `downloadURL` this server serves.
///
/// Paths of ours: `POST /assets/1/{container}/{environment}/upload` (the
/// upload URL) and `GET /assets/1/{container}/{environment}/download/{checksum}`.
/// Neither needs a web auth token: the URLs are handed only to a signed-in
/// caller, as Apple's are.
extension APIDispatcher {
    private static let pathSegment = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))

    private func assetsBase(container: String, environment: ContainerEnvironment) -> String {
        "\(baseURL)/assets/1/\(container.addingPercentEncoding(withAllowedCharacters: Self.pathSegment) ?? container)/\(environment.rawValue)"
    }

    /// Base64 → URL-safe base64 without padding, and back.
    package static func urlSafe(_ checksum: String) -> String {
        checksum.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    package static func fromURLSafe(_ text: String) -> String {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        return base64
    }

    /// `assets/upload` in a database: one upload URL per requested field.
    package func assetsUpload(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        if !caller.user.isEmpty { try core.engine.checkCaller(caller) }
        let request = try decode(WireAssetsUploadRequest.self, call)
        guard !request.tokens.isEmpty else {
            throw CloudError(.invalidArguments, "assets/upload needs 'tokens': one {\"recordType\", \"fieldName\", \"recordName\"?} per file to upload.")
        }
        try checkCount(request.tokens.count, "asset tokens")
        let url = assetsBase(container: db.container, environment: db.environment) + "/upload"
        return try encode(WireAssetsUploadResponse(tokens: request.tokens.map {
            WireAssetsUploadResponse.Token(recordName: $0.recordName, fieldName: $0.fieldName, url: url)
        }))
    }

    /// `POST /assets/1/{container}/{environment}/upload`: the file's bytes, kept.
    package func storeAssetFile(_ call: APICall) throws(CloudError) -> APIAnswer {
        let asset = core.engine.storeAsset(call.body)
        return try encode(
            WireAssetUploadReceipt(singleFile: .init(
                fileChecksum: asset.fileChecksum, size: asset.size, receipt: "syncscope-asset:" + Self.urlSafe(asset.fileChecksum),
                referenceChecksum: asset.fileChecksum)),
            changed: true)
    }

    /// `GET /assets/1/{container}/{environment}/download/{checksum}`: the file's bytes.
    package func assetFile(checksum: String) -> APIAnswer {
        guard let data = core.engine.assetData(checksum: Self.fromURLSafe(checksum)) else {
            return .notFound("No uploaded file has checksum '\(checksum)'.")
        }
        return APIAnswer(body: data)
    }

    /// The record with a `downloadURL` on each `ASSET` value whose file this server holds.
    package func withDownloadURLs(_ wire: WireRecord, _ db: DatabaseID) -> WireRecord {
        guard core.engine.hasAssets, let fields = wire.fields else { return wire }
        let base = assetsBase(container: db.container, environment: db.environment) + "/download/"
        func fill(_ value: JSONValue) -> JSONValue {
            guard case .object(var object) = value, case .string(let checksum)? = object["fileChecksum"],
                  core.engine.assetData(checksum: checksum) != nil
            else { return value }
            object["downloadURL"] = .string(base + Self.urlSafe(checksum))
            return .object(object)
        }
        var copy = wire
        var filled = fields
        for (name, field) in fields {
            switch (field.type, field.value) {
            case ("ASSET"?, let value?):
                filled[name]?.value = fill(value)
            case ("ASSET_LIST"?, .array(let items)?):
                filled[name]?.value = .array(items.map(fill))
            default: break
            }
        }
        copy.fields = filled
        return copy
    }
}
