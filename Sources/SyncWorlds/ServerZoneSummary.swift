import Foundation
import SyncCore

/// One zone as the server has it.
public struct ServerZoneSummary: Sendable, Hashable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Live records in the zone; `nil` when the observer cannot count them
    /// (over HTTP: the default and public zones, which have no change fetching).
    public var recordCount: Int?
    /// The sequence of the zone's latest change (0: none yet); `nil` over HTTP,
    /// where sequences are the server's secret.
    public var lastSequence: Int64?
    /// The token for "now", as a fetch that caught up would receive (custom zones only).
    public var currentToken: ServerChangeToken?
    /// The zone's `CKShare`s as the user can see them: the zone-wide share
    /// and record shares, on the owner's zone and on the zone in a
    /// participant's shared database alike (empty: not shared by a share).
    public var shares: [ServerShare]

    public init(
        scope: DatabaseScope, zoneID: RecordZoneID, recordCount: Int?, lastSequence: Int64?, currentToken: ServerChangeToken?,
        shares: [ServerShare] = []
    ) {
        self.scope = scope
        self.zoneID = zoneID
        self.recordCount = recordCount
        self.lastSequence = lastSequence
        self.currentToken = currentToken
        self.shares = shares
    }
}
