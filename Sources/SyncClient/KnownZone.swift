import SyncCore

/// A zone the device knows exists on the server.
public struct KnownZone: Sendable, Hashable, Comparable {
    public var zoneID: RecordZoneID
    /// The database reported a change the device has not fetched yet.
    public var needsFetch: Bool
    /// A full database refetch started and has not reported this zone yet.
    public var isStale: Bool

    public init(zoneID: RecordZoneID, needsFetch: Bool, isStale: Bool) {
        self.zoneID = zoneID
        self.needsFetch = needsFetch
        self.isStale = isStale
    }

    public static func < (lhs: KnownZone, rhs: KnownZone) -> Bool { lhs.zoneID < rhs.zoneID }
}
