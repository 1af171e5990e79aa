import SyncCore

/// What `GET /share/{shortGUID}` (a share's `url`, our extension) answers,
/// to anyone holding the URL: which share it is, whose, of what, and how to
/// accept it. It names the owner, the zone and the root record, as a share
/// link names what it shares, and nothing more: no participants, no record fields.
public struct WireSharePage: Codable, Sendable, Hashable {
    public var shortGUID: String
    public var url: String
    public var containerIdentifier: String
    public var environment: String
    /// The shared zone (its owner is the share's owner).
    public var zoneID: WireZoneID
    /// `zone` for a zone-wide share, `record` for a record share.
    public var kind: String
    /// A record share's root record.
    public var rootRecordName: String?
    public var ownerIdentity: WireUserIdentity
    /// `NONE` (only invited users accept), `READ_ONLY` or `READ_WRITE` (anyone with the URL may accept).
    public var publicPermission: String
    /// Where to resolve and accept the share, with the body to send and a sentence saying how.
    public var resolvePath: String
    public var acceptPath: String
    public var requestBody: WireShareGUIDsRequest
    public var howToAccept: String

    public init(
        shortGUID: String, url: String, containerIdentifier: String, environment: String, zoneID: WireZoneID, kind: String, rootRecordName: String?,
        ownerIdentity: WireUserIdentity, publicPermission: String, resolvePath: String, acceptPath: String, requestBody: WireShareGUIDsRequest,
        howToAccept: String
    ) {
        self.shortGUID = shortGUID
        self.url = url
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.zoneID = zoneID
        self.kind = kind
        self.rootRecordName = rootRecordName
        self.ownerIdentity = ownerIdentity
        self.publicPermission = publicPermission
        self.resolvePath = resolvePath
        self.acceptPath = acceptPath
        self.requestBody = requestBody
        self.howToAccept = howToAccept
    }
}
