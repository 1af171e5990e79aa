import SyncCore

/// One zone of one user, as the inspector on a server lists it.
public struct WatchedZone: Sendable, Hashable {
    public var user: String
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Live records; `nil` when the server does not say (the default and public zones).
    public var recordCount: Int?

    public init(user: String, scope: DatabaseScope, zoneID: RecordZoneID, recordCount: Int?) {
        self.user = user
        self.scope = scope
        self.zoneID = zoneID
        self.recordCount = recordCount
    }

    /// `alice private/Notes` (a shared zone names its owner: `bob shared/Trip (alice)`).
    public var label: String {
        let owner = scope == .shared ? " (\(zoneID.ownerName))" : ""
        return "\(user) \(scope.rawValue)/\(zoneID.zoneName)\(owner)"
    }
}
