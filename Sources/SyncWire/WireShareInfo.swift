import SyncCore

/// One result of `records/resolve` or `records/accept` (Apple's ShortGUID
/// result dictionary, CloudKit JS's `RecordInfo`): the share record with its
/// share keys, its zone, the owner's identity and the caller's place in the
/// share; `rootRecord` only for a record share asked with `shouldFetchRootRecord`.
public struct WireShareInfo: Codable, Sendable, Hashable {
    public var shortGUID: String
    public var containerIdentifier: String
    public var environment: String
    /// Where the share's records are for the caller: `SHARED` (a participant), `PRIVATE` (the owner).
    public var databaseScope: String
    public var zoneID: WireZoneID
    public var share: WireRecord
    public var rootRecord: WireRecord?
    public var ownerIdentity: WireUserIdentity
    /// The caller's `acceptanceStatus`, `permission` and `type` in the share
    /// (absent when the caller is not yet a participant of a public share).
    public var participantStatus: String?
    public var participantPermission: String?
    public var participantType: String?

    public init(
        shortGUID: String, containerIdentifier: String, environment: String, databaseScope: String, zoneID: WireZoneID, share: WireRecord,
        rootRecord: WireRecord? = nil, ownerIdentity: WireUserIdentity, participantStatus: String? = nil, participantPermission: String? = nil,
        participantType: String? = nil
    ) {
        self.shortGUID = shortGUID
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.databaseScope = databaseScope
        self.zoneID = zoneID
        self.share = share
        self.rootRecord = rootRecord
        self.ownerIdentity = ownerIdentity
        self.participantStatus = participantStatus
        self.participantPermission = participantPermission
        self.participantType = participantType
    }
}

/// The answer of `records/resolve` and `records/accept`: `{"results": [info | error]}`.
public struct WireShareInfosResponse: Codable, Sendable, Hashable {
    public var results: [WireResult<WireShareInfo>]

    public init(results: [WireResult<WireShareInfo>]) { self.results = results }
}
