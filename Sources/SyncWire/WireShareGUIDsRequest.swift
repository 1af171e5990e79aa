import SyncCore

/// `records/resolve` and `records/accept`: `{"shortGUIDs": [{"value",
/// "shouldFetchRootRecord", "rootRecordDesiredKeys"}]}` (Apple's ShortGUID dictionary).
public struct WireShareGUIDsRequest: Codable, Sendable, Hashable {
    public struct ShortGUID: Codable, Sendable, Hashable {
        public var value: String
        public var shouldFetchRootRecord: Bool?
        public var rootRecordDesiredKeys: [String]?

        public init(value: String, shouldFetchRootRecord: Bool? = nil, rootRecordDesiredKeys: [String]? = nil) {
            self.value = value
            self.shouldFetchRootRecord = shouldFetchRootRecord
            self.rootRecordDesiredKeys = rootRecordDesiredKeys
        }
    }

    public var shortGUIDs: [ShortGUID]

    public init(shortGUIDs: [ShortGUID]) { self.shortGUIDs = shortGUIDs }
}
