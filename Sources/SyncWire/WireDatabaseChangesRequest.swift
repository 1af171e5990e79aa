import SyncCore

/// `changes/database`: `{"syncToken"?, "resultsLimit"?}`.
public struct WireDatabaseChangesRequest: Codable, Sendable, Hashable {
    public var syncToken: ServerChangeToken?
    public var resultsLimit: Int?

    public init(syncToken: ServerChangeToken? = nil, resultsLimit: Int? = nil) {
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// `zones/changes`: `{"syncToken"?, "resultsLimit"?}` — the zones of the
/// database that changed since the token, as `changes/database` answers.
public typealias WireZonesChangesRequest = WireDatabaseChangesRequest
