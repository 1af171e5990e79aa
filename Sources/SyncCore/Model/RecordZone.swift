/// A record zone as the server reports it.
public struct RecordZone: Sendable, Hashable {
    public var zoneID: RecordZoneID
    /// Custom zones support atomic commits and change fetching.
    public var supportsChangeFetching: Bool

    public init(zoneID: RecordZoneID) {
        self.zoneID = zoneID
        self.supportsChangeFetching = !zoneID.isDefaultZone
    }
}
