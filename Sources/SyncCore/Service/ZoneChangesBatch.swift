import Foundation

/// One batch of one zone's changes.
public struct ZoneChangesBatch: Sendable, Hashable {
    public var zoneID: RecordZoneID
    /// Oldest change first; each record at most once.
    public var changes: [RecordChange]
    public var serverChangeToken: ServerChangeToken
    public var moreComing: Bool
    public var clientChangeTokenData: Data?

    public init(
        zoneID: RecordZoneID,
        changes: [RecordChange],
        serverChangeToken: ServerChangeToken,
        moreComing: Bool,
        clientChangeTokenData: Data? = nil
    ) {
        self.zoneID = zoneID
        self.changes = changes
        self.serverChangeToken = serverChangeToken
        self.moreComing = moreComing
        self.clientChangeTokenData = clientChangeTokenData
    }
}
