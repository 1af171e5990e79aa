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

/// `created` / `modified` on the wire: `{"timestamp": ms, "userRecordName": U, "deviceID": D}`.
public struct WireStamp: Codable, Sendable, Hashable {
    public var timestamp: Int64
    public var userRecordName: String
    public var deviceID: String?

    public init(timestamp: Int64, userRecordName: String, deviceID: String? = nil) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    public init(_ stamp: RecordStamp) {
        self.init(timestamp: stamp.timestamp, userRecordName: stamp.userRecordName, deviceID: stamp.deviceID)
    }
}

extension RecordStamp {
    public init(_ wire: WireStamp) {
        self.init(timestamp: wire.timestamp, userRecordName: wire.userRecordName, deviceID: wire.deviceID)
    }
}
