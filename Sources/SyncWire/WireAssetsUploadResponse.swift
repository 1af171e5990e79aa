import SyncCore

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
