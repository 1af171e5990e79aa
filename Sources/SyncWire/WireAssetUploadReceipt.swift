import SyncCore

/// The answer to the bytes POSTed to an upload URL: `{"singleFile": receipt}`.
/// The receipt is what a `records/modify` puts as the `ASSET` field's value.
public struct WireAssetUploadReceipt: Codable, Sendable, Hashable {
    public struct SingleFile: Codable, Sendable, Hashable {
        public var fileChecksum: String
        public var size: Int64
        public var receipt: String
        public var referenceChecksum: String?
        public var wrappingKey: String?

        public init(fileChecksum: String, size: Int64, receipt: String, referenceChecksum: String? = nil, wrappingKey: String? = nil) {
            self.fileChecksum = fileChecksum
            self.size = size
            self.receipt = receipt
            self.referenceChecksum = referenceChecksum
            self.wrappingKey = wrappingKey
        }
    }

    public var singleFile: SingleFile

    public init(singleFile: SingleFile) { self.singleFile = singleFile }
}
