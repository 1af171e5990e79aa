import SyncCore

/// A record's system reference on the wire: its `parent` or its `share`
/// (Apple's record dictionary, CloudKit JS's `CKReference`):
/// `{"recordName", "zoneID"?, "action"?}`. A `forRecord` (a share record's
/// root) is `{"recordName", "recordChangeTag"?}`, read with the same type.
public struct WireRecordReference: Codable, Sendable, Hashable {
    public var recordName: String
    public var zoneID: WireZoneID?
    public var action: String?
    /// Only in a share record's `forRecord`: the root's change tag as the client last saw it.
    public var recordChangeTag: String?

    public init(recordName: String, zoneID: WireZoneID? = nil, action: String? = nil, recordChangeTag: String? = nil) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
        self.recordChangeTag = recordChangeTag
    }

    public init(_ reference: RecordReference) {
        self.init(recordName: reference.recordName, zoneID: reference.zoneID.map(WireZoneID.init), action: reference.action == .none ? nil : reference.action.rawValue)
    }

    /// The reference in the model (its zone, when given, as sent).
    public var reference: RecordReference {
        RecordReference(recordName: recordName, zoneID: zoneID.map(RecordZoneID.init), action: action.flatMap(ReferenceAction.init(rawValue:)) ?? .none)
    }
}
