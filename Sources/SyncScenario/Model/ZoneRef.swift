import SyncCore
import SyncClient

/// A zone as a scenario names it: `Notes`, or `Notes@alice` for a zone of
/// another user (a shared zone).
public struct ZoneRef: Sendable, Hashable, CustomStringConvertible {
    public var zoneName: String
    /// `nil`: the acting user's own zone — or, in the shared database, the
    /// one zone of that name shared with the acting user.
    public var ownerName: String?

    public init(_ zoneName: String, ownerName: String? = nil) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// The default zone, `_defaultZone`.
    public static let defaultZone = ZoneRef(RecordZoneID.defaultZoneName)

    /// The zone ID, taking `defaultOwner` when the scenario names no owner.
    public func zoneID(defaultOwner: String) -> RecordZoneID {
        RecordZoneID(zoneName: zoneName, ownerName: ownerName ?? defaultOwner)
    }

    public var description: String {
        ownerName.map { "\(zoneName)@\($0)" } ?? zoneName
    }
}
