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
