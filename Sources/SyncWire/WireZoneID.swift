import SyncCore

/// A zone ID on the wire: `{"zoneName": "Notes", "ownerRecordName": "alice"}`.
///
/// `ownerRecordName` may be left out on input; it then means the caller.
public struct WireZoneID: Codable, Sendable, Hashable {
    public var zoneName: String
    public var ownerRecordName: String?

    public init(zoneName: String, ownerRecordName: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    public init(_ zoneID: RecordZoneID) {
        zoneName = zoneID.zoneName
        ownerRecordName = zoneID.ownerName
    }
}

extension RecordZoneID {
    /// The zone a wire zone ID names. A missing owner stays empty, which the
    /// server reads as "the caller".
    public init(_ wire: WireZoneID) {
        self.init(zoneName: wire.zoneName, ownerName: wire.ownerRecordName ?? "")
    }
}
