/// Identifies a record: its name within a zone.
public struct RecordID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var recordName: String
    public var zoneID: RecordZoneID

    public init(recordName: String, zoneID: RecordZoneID) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    public var description: String { "\(recordName) in \(zoneID)" }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        (lhs.zoneID, lhs.recordName) < (rhs.zoneID, rhs.recordName)
    }
}
