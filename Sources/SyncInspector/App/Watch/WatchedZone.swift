import SyncCore
import SyncWorlds

/// One zone of one user, as the inspector on a server lists it.
public struct WatchedZone: Sendable, Hashable {
    public var user: String
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Live records; `nil` when the server does not say (the default and public zones).
    public var recordCount: Int?
    /// The zone's `CKShare`s as the user sees them (the owner's zone and the
    /// zone in a participant's shared database alike), listed under the zone.
    public var shares: [ServerShare]

    public init(user: String, scope: DatabaseScope, zoneID: RecordZoneID, recordCount: Int?, shares: [ServerShare] = []) {
        self.user = user
        self.scope = scope
        self.zoneID = zoneID
        self.recordCount = recordCount
        self.shares = shares
    }

    /// The lines the zones pane lists under the zone: each share and its
    /// participants, in the user's words (the in-process inspector's ``ZoneShareLine``s).
    public var shareLines: [ZoneShareLine] {
        ZoneShareLine.lines(of: shares, zone: ZoneKey(scope: scope, zoneID: zoneID), viewer: user)
    }

    /// `alice private/Notes` (a shared zone names its owner: `bob shared/Trip (alice)`).
    public var label: String {
        let owner = scope == .shared ? " (\(zoneID.ownerName))" : ""
        return "\(user) \(scope.rawValue)/\(zoneID.zoneName)\(owner)"
    }
}
