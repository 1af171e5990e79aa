/// Who changed a record, from which device, and when.
public struct RecordStamp: Sendable, Hashable {
    /// Milliseconds since 1970-01-01T00:00:00Z (on the simulation's clock).
    public var timestamp: Int64
    public var userRecordName: String
    public var deviceID: String?

    public init(timestamp: Int64, userRecordName: String, deviceID: String? = nil) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }
}
