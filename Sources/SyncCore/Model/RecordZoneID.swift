/// Identifies a record zone: its name and the user who owns it.
public struct RecordZoneID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name every database gives its default zone.
    public static let defaultZoneName = "_defaultZone"
    /// The owner name of the public database's default zone.
    public static let publicOwnerName = "__public__"
    /// CloudKit's name for "the current user" (`CKCurrentUserDefaultName`).
    public static let currentUserName = "__defaultOwner__"

    public var zoneName: String
    public var ownerName: String

    public init(zoneName: String, ownerName: String) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// The default zone of `ownerName`'s database.
    public static func defaultZone(ownerName: String) -> RecordZoneID {
        RecordZoneID(zoneName: defaultZoneName, ownerName: ownerName)
    }

    public var isDefaultZone: Bool { zoneName == Self.defaultZoneName }

    public var description: String { "\(zoneName)@\(ownerName)" }

    public static func < (lhs: RecordZoneID, rhs: RecordZoneID) -> Bool {
        (lhs.ownerName, lhs.zoneName) < (rhs.ownerName, rhs.zoneName)
    }
}
