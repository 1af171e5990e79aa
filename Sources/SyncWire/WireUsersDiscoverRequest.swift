import SyncCore

/// `users/discover` (POST): `{"lookupInfos": [lookup info]}`.
public struct WireUsersDiscoverRequest: Codable, Sendable, Hashable {
    public var lookupInfos: [WireUserLookupInfo]

    public init(lookupInfos: [WireUserLookupInfo]) { self.lookupInfos = lookupInfos }
}
