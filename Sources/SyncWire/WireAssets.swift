import SyncCore

/// `assets/upload`: `{"zoneID"?, "tokens": [{"recordName"?, "recordType", "fieldName"}]}`.
public struct WireAssetsUploadRequest: Codable, Sendable, Hashable {
    public struct Token: Codable, Sendable, Hashable {
        public var recordName: String?
        public var recordType: String?
        public var fieldName: String

        public init(recordName: String? = nil, recordType: String? = nil, fieldName: String) {
            self.recordName = recordName
            self.recordType = recordType
            self.fieldName = fieldName
        }
    }

    public var zoneID: WireZoneID?
    public var tokens: [Token]

    public init(zoneID: WireZoneID? = nil, tokens: [Token]) {
        self.zoneID = zoneID
        self.tokens = tokens
    }
}

/// The answer of `assets/upload`: `{"tokens": [{"recordName", "fieldName", "url"}]}`;
/// the client POSTs the file's bytes to `url`.
public struct WireAssetsUploadResponse: Codable, Sendable, Hashable {
    public struct Token: Codable, Sendable, Hashable {
        public var recordName: String?
        public var fieldName: String
        public var url: String

        public init(recordName: String?, fieldName: String, url: String) {
            self.recordName = recordName
            self.fieldName = fieldName
            self.url = url
        }
    }

    public var tokens: [Token]

    public init(tokens: [Token]) { self.tokens = tokens }
}

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
