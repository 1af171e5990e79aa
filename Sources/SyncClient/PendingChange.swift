import SyncCore

/// One queued local change. At most one per record (a save or a deletion)
/// and one save and one deletion per zone.
public struct PendingChange: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case saveZone, deleteZone, saveRecord, deleteRecord
    }

    /// What a pending change is about; a new change with the same key replaces the old one.
    public struct Key: Sendable, Hashable, Comparable {
        public var scope: DatabaseScope
        public var zoneID: RecordZoneID
        /// `zone:save`, `zone:delete` or `record:<name>`.
        public var target: String

        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.scope, lhs.zoneID, lhs.target) < (rhs.scope, rhs.zoneID, rhs.target)
        }
    }

    public var scope: DatabaseScope
    public var kind: Kind
    public var zoneID: RecordZoneID
    /// `nil` for zone changes.
    public var recordName: String?
    /// For record changes (may be empty for a deletion of an unknown type).
    public var recordType: String
    /// For saves: the fields changed locally (set or removed), sorted. On a
    /// conflict these are written over the server's record.
    public var changedKeys: [String]
    /// For saves: the record was created on this device and has certainly
    /// never reached the server, so deleting it before it is sent needs no request.
    public var isNewRecord: Bool
    /// For saves: how the save is sent (`CKModifyRecordsOperation.savePolicy`);
    /// always `.ifServerRecordUnchanged` for other kinds.
    public var savePolicy: RecordSavePolicy

    public init(
        scope: DatabaseScope, kind: Kind, zoneID: RecordZoneID, recordName: String?, recordType: String = "",
        changedKeys: [String] = [], isNewRecord: Bool = false, savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    ) {
        self.scope = scope
        self.kind = kind
        self.zoneID = zoneID
        self.recordName = recordName
        self.recordType = recordType
        self.changedKeys = Array(Set(changedKeys)).sorted()
        self.isNewRecord = kind == .saveRecord && isNewRecord
        self.savePolicy = kind == .saveRecord ? savePolicy : .ifServerRecordUnchanged
    }

    public static func saveZone(_ zoneID: RecordZoneID, scope: DatabaseScope = .private) -> PendingChange {
        PendingChange(scope: scope, kind: .saveZone, zoneID: zoneID, recordName: nil)
    }

    public static func deleteZone(_ zoneID: RecordZoneID, scope: DatabaseScope = .private) -> PendingChange {
        PendingChange(scope: scope, kind: .deleteZone, zoneID: zoneID, recordName: nil)
    }

    public static func saveRecord(
        _ recordID: RecordID, recordType: String, changedKeys: [String], scope: DatabaseScope, isNewRecord: Bool = false,
        savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    ) -> PendingChange {
        PendingChange(
            scope: scope, kind: .saveRecord, zoneID: recordID.zoneID, recordName: recordID.recordName, recordType: recordType,
            changedKeys: changedKeys, isNewRecord: isNewRecord, savePolicy: savePolicy)
    }

    public static func deleteRecord(_ recordID: RecordID, recordType: String, scope: DatabaseScope) -> PendingChange {
        PendingChange(scope: scope, kind: .deleteRecord, zoneID: recordID.zoneID, recordName: recordID.recordName, recordType: recordType)
    }

    public var recordID: RecordID? {
        recordName.map { RecordID(recordName: $0, zoneID: zoneID) }
    }

    public var isRecordChange: Bool { kind == .saveRecord || kind == .deleteRecord }

    public var key: Key {
        let target: String
        switch kind {
        case .saveZone: target = "zone:save"
        case .deleteZone: target = "zone:delete"
        case .saveRecord, .deleteRecord: target = "record:" + (recordName ?? "")
        }
        return Key(scope: scope, zoneID: zoneID, target: target)
    }

    public static func recordKey(_ recordID: RecordID, scope: DatabaseScope) -> Key {
        Key(scope: scope, zoneID: recordID.zoneID, target: "record:" + recordID.recordName)
    }

    public var description: String {
        switch kind {
        case .saveZone: "save zone \(zoneID) (\(scope.rawValue))"
        case .deleteZone: "delete zone \(zoneID) (\(scope.rawValue))"
        case .saveRecord:
            "save \(isNewRecord ? "new " : "")\(recordName ?? "?") in \(zoneID) [\(changedKeys.joined(separator: ","))]"
                + (savePolicy == .ifServerRecordUnchanged ? "" : " savePolicy \(savePolicy.rawValue)")
        case .deleteRecord: "delete \(recordName ?? "?") in \(zoneID)"
        }
    }
}
