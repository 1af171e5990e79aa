import SyncCore

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
