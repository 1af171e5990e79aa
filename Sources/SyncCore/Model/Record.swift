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

/// A record: a type, typed fields, and the server's system fields.
public struct Record: Sendable, Hashable, CustomStringConvertible {
    public var recordID: RecordID
    public var recordType: String
    public var fields: RecordFields
    /// The server's version tag for this record; `nil` until the server saved it.
    public var recordChangeTag: String?
    public var created: RecordStamp?
    public var modified: RecordStamp?

    public init(
        recordID: RecordID,
        recordType: String,
        fields: RecordFields = RecordFields(),
        recordChangeTag: String? = nil,
        created: RecordStamp? = nil,
        modified: RecordStamp? = nil
    ) {
        self.recordID = recordID
        self.recordType = recordType
        self.fields = fields
        self.recordChangeTag = recordChangeTag
        self.created = created
        self.modified = modified
    }

    public subscript(key: String) -> FieldValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    public var description: String {
        let body = fields.map { "\($0.name)=\($0.value.displayString)" }.joined(separator: " ")
        return "\(recordType) \(recordID.recordName) [\(recordChangeTag ?? "unsaved")] \(body)"
    }
}

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
