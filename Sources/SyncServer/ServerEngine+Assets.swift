import Crypto
import Foundation
import SyncCore

extension ServerEngine {
    /// The checksum an asset is known by: base64 of its SHA-256.
    public static func checksum(of data: Data) -> String {
        Data(SHA256.hash(data: data)).base64EncodedString()
    }

    /// Keeps an uploaded file (`assets/upload`'s second step) and returns
    /// what an `ASSET` field holds for it. The same bytes stored twice are
    /// kept once. Part of the state: exported, imported, checkpointed.
    @discardableResult
    public func storeAsset(_ data: Data) -> AssetDescriptor {
        let checksum = Self.checksum(of: data)
        if assets[checksum] == nil { assets[checksum] = data }
        return AssetDescriptor(fileChecksum: checksum, size: Int64(data.count))
    }

    /// The bytes of an uploaded file, by checksum; `nil` when none was uploaded.
    public func assetData(checksum: String) -> Data? { assets[checksum] }

    /// Whether any file was uploaded (so answers need download URLs).
    public var hasAssets: Bool { !assets.isEmpty }
}
