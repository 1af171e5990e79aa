import SyncCore

/// A record on the wire: `{"recordName", "recordType", "recordChangeTag",
/// "fields", "created", "modified", "deleted"}`.
///
/// A deleted record (in `changes/zone` and `records/modify` answers) is
/// `{"recordName", "deleted": true}`, as Apple's servers send it: no
/// `recordType`, no `fields` — clients tell a deletion from a record by that
/// shape, and take a deleted record's type from their own cache (see
/// `CacheTypedCloudService` in SyncClient). The record's zone is the zone of the request
/// or answer around it; `zoneID` is written only where records of several
/// zones share one answer (a `zoneWide` query).
public struct WireRecord: Codable, Sendable, Hashable {
    public var recordName: String
    public var recordType: String?
    public var recordChangeTag: String?
    public var fields: [String: WireField]?
    public var created: WireStamp?
    public var modified: WireStamp?
    public var deleted: Bool?
    public var zoneID: WireZoneID?
    /// The record's parent (`CKRecord.parent`), a record of the same zone.
    public var parent: WireRecordReference?
    /// The share whose root this record is (`CKRecord.share`); the server sets it.
    public var share: WireRecordReference?
    // A share record's own keys (`recordType` `cloudkit.share`), as Apple's
    // record dictionary has them; read only for share records.
    public var shortGUID: String?
    /// `NONE`, `READ_ONLY` or `READ_WRITE`.
    public var publicPermission: String?
    public var participants: [WireShareParticipant]?
    public var owner: WireShareParticipant?
    public var currentUserParticipant: WireShareParticipant?
    /// The share's URL on this server (CKShare's `url`; not in Apple's Web Services record dictionary).
    public var url: String?
    /// A share record's root (`forRecord`, as CloudKit JS and CKTool JS send
    /// it): the record the share is for. Read on a save; never answered.
    public var forRecord: WireRecordReference?

    public init(
        recordName: String,
        recordType: String? = nil,
        recordChangeTag: String? = nil,
        fields: [String: WireField]? = nil,
        created: WireStamp? = nil,
        modified: WireStamp? = nil,
        deleted: Bool? = nil,
        zoneID: WireZoneID? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.deleted = deleted
        self.zoneID = zoneID
    }

    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, created, modified, deleted, zoneID, parent, share
        case shortGUID, publicPermission, participants, owner, currentUserParticipant, url, forRecord
    }

    /// The record type of a share (`CKShare`).
    public static let shareRecordType = "cloudkit.share"

    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, nameRequired: true)
    }

    /// Reads a record; with `nameRequired` false (a record to save), a
    /// missing `recordName` reads as empty: the server gives the record a
    /// new UUID name, as Apple's servers do.
    init(from decoder: any Decoder, nameRequired: Bool) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = nameRequired ? try container.decode(String.self, forKey: .recordName) : try container.decodeIfPresent(String.self, forKey: .recordName) ?? ""
        recordType = try container.decodeIfPresent(String.self, forKey: .recordType)
        recordChangeTag = try container.decodeIfPresent(String.self, forKey: .recordChangeTag)
        fields = try container.decodeIfPresent([String: WireField].self, forKey: .fields)
        created = try container.decodeIfPresent(WireStamp.self, forKey: .created)
        modified = try container.decodeIfPresent(WireStamp.self, forKey: .modified)
        deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted)
        zoneID = try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        parent = try container.decodeIfPresent(WireRecordReference.self, forKey: .parent)
        share = try container.decodeIfPresent(WireRecordReference.self, forKey: .share)
        guard recordType == Self.shareRecordType else { return }
        shortGUID = try container.decodeIfPresent(String.self, forKey: .shortGUID)
        publicPermission = try container.decodeIfPresent(String.self, forKey: .publicPermission)
        participants = try container.decodeIfPresent([WireShareParticipant].self, forKey: .participants)
        owner = try container.decodeIfPresent(WireShareParticipant.self, forKey: .owner)
        currentUserParticipant = try container.decodeIfPresent(WireShareParticipant.self, forKey: .currentUserParticipant)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        forRecord = try container.decodeIfPresent(WireRecordReference.self, forKey: .forRecord)
    }

    /// A live record, every field typed.
    public init(_ record: Record) {
        var fields: [String: WireField] = [:]
        fields.reserveCapacity(record.fields.count)
        for field in record.fields { fields[field.name] = WireField(field.value) }
        self.init(
            recordName: record.recordID.recordName,
            recordType: record.recordType,
            recordChangeTag: record.recordChangeTag,
            fields: fields,
            created: record.created.map(WireStamp.init),
            modified: record.modified.map(WireStamp.init),
            deleted: false)
        parent = record.parent.map(WireRecordReference.init)
        share = record.share.map(WireRecordReference.init)
    }

    /// A deleted record: `{"recordName", "deleted": true}`. The type is not
    /// sent (Apple's servers do not send it); the parameter documents what is left out.
    public init(deleted recordID: RecordID, recordType _: String) {
        self.init(recordName: recordID.recordName, deleted: true)
    }

    /// An entry of a `changes/zone` answer.
    public init(_ change: RecordChange) {
        switch change {
        case .changed(let record): self.init(record)
        case .deleted(let id, let recordType): self.init(deleted: id, recordType: recordType)
        }
    }

    /// A successful item of a `records/modify` answer.
    public init(_ result: RecordOperationResult) {
        switch result {
        case .saved(let record): self.init(record)
        case .deleted(let id, let recordType): self.init(deleted: id, recordType: recordType)
        }
    }

    public var isDeleted: Bool { deleted ?? false }

    /// The fields sent with the value `null`: a save removes them.
    public var fieldNamesWithoutValue: [String] {
        guard let fields else { return [] }
        var names: [String] = []
        for (name, field) in fields where field.hasNoValue { names.append(name) }
        if names.count > 1 { names.sort() }
        return names
    }
}

extension Record {
    /// The record a wire record describes, in `zoneID` (the zone of the
    /// request or answer around it). Throws `invalidArguments` naming the field
    /// when a field's value or type is wrong or missing. A missing
    /// `recordType` becomes "" (enough for deletions; saves need one).
    public init(_ wire: WireRecord, zoneID: RecordZoneID) throws(CloudError) {
        var fields = RecordFields()
        if let wireFields = wire.fields {
            // Sorted, so that with several bad fields the error is always about
            // the same one; in that order they make the fields' sorted storage.
            var sorted: [Field] = []
            sorted.reserveCapacity(wireFields.count)
            for (name, field) in wireFields.sorted(by: { $0.key < $1.key }) where !field.hasNoValue {  // null: no value
                sorted.append(Field(name: name, value: try field.fieldValue(name: name, recordName: wire.recordName)))
            }
            fields = RecordFields(sortedUniqueFields: sorted)
        }
        self.init(
            recordID: RecordID(recordName: wire.recordName, zoneID: zoneID),
            recordType: wire.recordType ?? "",
            fields: fields,
            recordChangeTag: wire.recordChangeTag,
            created: wire.created.map(RecordStamp.init),
            modified: wire.modified.map(RecordStamp.init),
            parent: wire.parent?.reference,
            share: wire.share?.reference)
    }
}

extension RecordChange {
    /// A `changes/zone` entry: deleted (`"deleted": true`) or changed.
    public init(_ wire: WireRecord, zoneID: RecordZoneID) throws(CloudError) {
        if wire.isDeleted {
            self = .deleted(RecordID(recordName: wire.recordName, zoneID: zoneID), recordType: wire.recordType ?? "")
        } else {
            self = .changed(try Record(wire, zoneID: zoneID))
        }
    }
}

extension RecordOperationResult {
    /// A successful `records/modify` item: deleted (`"deleted": true`) or saved.
    public init(_ wire: WireRecord, zoneID: RecordZoneID) throws(CloudError) {
        if wire.isDeleted {
            self = .deleted(RecordID(recordName: wire.recordName, zoneID: zoneID), recordType: wire.recordType ?? "")
        } else {
            self = .saved(try Record(wire, zoneID: zoneID))
        }
    }
}
