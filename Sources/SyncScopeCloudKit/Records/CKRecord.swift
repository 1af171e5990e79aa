import Foundation
import Synchronization
import SyncCore
import SyncWire

/// A record, as CloudKit's `CKRecord`: a type, an ID, fields, and the server's system fields.
///
/// Secure coding works as on Apple's systems: ``encodeSystemFields(with:)`` writes only the
/// system fields (ID, type, change tag, dates, creator), `encode(with:)` writes the fields
/// too, and ``init(coder:)`` reads either back through `NSKeyedUnarchiver`. A record rebuilt
/// from its system fields and saved with the fields the app sets saves as an update of the
/// server's record (its change tag goes with it).
public final class CKRecord: NSObject, NSSecureCoding, NSCopying, CKRecordKeyValueSetting, @unchecked Sendable {
    public typealias ID = CKRecordID
    public typealias RecordType = String
    public typealias FieldKey = String
    public typealias Reference = CKReference

    public let recordID: CKRecord.ID
    public let recordType: CKRecord.RecordType
    private let storage: Mutex<Storage>

    struct Storage {
        var fields = RecordFields()
        var changed: [String] = []
        var recordChangeTag: String?
        var creationDate: Date?
        var modificationDate: Date?
        var creatorUserRecordID: CKRecord.ID?
        var lastModifiedUserRecordID: CKRecord.ID?
    }

    public init(recordType: CKRecord.RecordType, recordID: CKRecord.ID = CKRecord.ID()) {
        self.recordType = recordType
        self.recordID = recordID
        storage = Mutex(Storage())
    }

    public convenience init(recordType: CKRecord.RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: CKRecord.ID(recordName: UUID().uuidString, zoneID: zoneID))
    }

    init(recordType: String, recordID: CKRecord.ID, storage: Storage) {
        self.recordType = recordType
        self.recordID = recordID
        self.storage = Mutex(storage)
    }

    // MARK: System fields

    /// The server's version tag; `nil` until the record was saved.
    public var recordChangeTag: String? { storage.withLock { $0.recordChangeTag } }
    public var creationDate: Date? { storage.withLock { $0.creationDate } }
    public var modificationDate: Date? { storage.withLock { $0.modificationDate } }
    public var creatorUserRecordID: CKRecord.ID? { storage.withLock { $0.creatorUserRecordID } }
    public var lastModifiedUserRecordID: CKRecord.ID? { storage.withLock { $0.lastModifiedUserRecordID } }

    // MARK: Fields

    public subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    public func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        guard let value = storage.withLock({ $0.fields[key] }) else { return nil }
        if case .encryptedBytes = value { return nil }
        return RecordValueBridge.recordValue(value)
    }

    public func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: CKRecord.FieldKey) {
        set(object.flatMap(RecordValueBridge.fieldValue), forKey: key)
    }

    func set(_ value: FieldValue?, forKey key: String) {
        storage.withLock {
            $0.fields[key] = value
            if !$0.changed.contains(key) { $0.changed.append(key) }
        }
    }

    func fieldValue(forKey key: String) -> FieldValue? { storage.withLock { $0.fields[key] } }

    /// Every key with a value, encrypted or not.
    public func allKeys() -> [CKRecord.FieldKey] { storage.withLock { $0.fields.names } }

    /// The keys set (or removed) since the record came from the server or was created.
    public func changedKeys() -> [CKRecord.FieldKey] { storage.withLock { $0.changed } }

    /// Fields whose values are encrypted on the server (`ENCRYPTED_BYTES` on the wire).
    public var encryptedValues: any CKRecordKeyValueSetting { CKEncryptedValues(record: self) }

    // MARK: Secure coding

    public static var supportsSecureCoding: Bool { true }

    /// Writes only the system fields, to keep beside the app's own data.
    public func encodeSystemFields(with coder: NSCoder) {
        let s = storage.withLock { $0 }
        recordID.encode(with: coder)
        coder.encode(recordType as NSString, forKey: "recordType")
        if let tag = s.recordChangeTag { coder.encode(tag as NSString, forKey: "recordChangeTag") }
        if let date = s.creationDate { coder.encode(date.timeIntervalSince1970, forKey: "creationDate") }
        if let date = s.modificationDate { coder.encode(date.timeIntervalSince1970, forKey: "modificationDate") }
        if let id = s.creatorUserRecordID { coder.encode(id.recordName as NSString, forKey: "creatorUserRecordName") }
        if let id = s.lastModifiedUserRecordID { coder.encode(id.recordName as NSString, forKey: "lastModifiedUserRecordName") }
    }

    /// Writes the system fields and every field.
    public func encode(with coder: NSCoder) {
        encodeSystemFields(with: coder)
        let fields = storage.withLock { $0.fields }
        var wire: [String: WireField] = [:]
        for field in fields { wire[field.name] = WireField(field.value) }
        if let data = try? WireJSON.encode(wire) { coder.encode(String(decoding: data, as: UTF8.self) as NSString, forKey: "fields") }
    }

    public init?(coder: NSCoder) {
        guard let id = CKRecord.ID(coder: coder), let type = coder.decodeObject(of: NSString.self, forKey: "recordType") else { return nil }
        recordID = id
        recordType = type as String
        var s = Storage()
        if coder.containsValue(forKey: "recordChangeTag") {
            s.recordChangeTag = coder.decodeObject(of: NSString.self, forKey: "recordChangeTag") as String?
        }
        if coder.containsValue(forKey: "creationDate") {
            s.creationDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: "creationDate"))
        }
        if coder.containsValue(forKey: "modificationDate") {
            s.modificationDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: "modificationDate"))
        }
        if coder.containsValue(forKey: "creatorUserRecordName"), let name = coder.decodeObject(of: NSString.self, forKey: "creatorUserRecordName") {
            s.creatorUserRecordID = CKRecord.ID(recordName: name as String)
        }
        if coder.containsValue(forKey: "lastModifiedUserRecordName"),
            let name = coder.decodeObject(of: NSString.self, forKey: "lastModifiedUserRecordName")
        {
            s.lastModifiedUserRecordID = CKRecord.ID(recordName: name as String)
        }
        if coder.containsValue(forKey: "fields"), let text = coder.decodeObject(of: NSString.self, forKey: "fields") as String?,
            let wire = try? WireJSON.decode([String: WireField].self, from: text)
        {
            for (name, field) in wire {
                if let value = try? field.fieldValue(name: name) { s.fields[name] = value }
            }
        }
        storage = Mutex(s)
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        CKRecord(recordType: recordType, recordID: recordID, storage: storage.withLock { $0 })
    }

    public override var description: String {
        "<CKRecord: \(recordType) \(recordID.recordName) tag=\(recordChangeTag ?? "nil") keys=\(allKeys())>"
    }
}

extension CKRecord {
    /// The record as the server should store it, in the server's names.
    func serverRecord(user: String) -> Record {
        let s = storage.withLock { $0 }
        let serverID = recordID.serverRecordID(user: user)
        var fields = RecordFields()
        for field in s.fields {
            fields[field.name] = RecordValueBridge.mappingReferences(field.value) { $0.ownerName == CKCurrentUserDefaultName ? RecordZoneID(zoneName: $0.zoneName, ownerName: user) : $0 }
        }
        return Record(recordID: serverID, recordType: recordType, fields: fields, recordChangeTag: s.recordChangeTag)
    }

    /// A record as the server hands it out, in CloudKit's names; no key counts as changed.
    convenience init(_ record: Record, user: String) {
        let id = CKRecord.ID(record.recordID, user: user)
        var s = Storage()
        for field in record.fields {
            s.fields[field.name] = RecordValueBridge.mappingReferences(field.value) { zone in
                RecordZoneID(zoneName: zone.zoneName, ownerName: zone.ownerName == user ? CKCurrentUserDefaultName : zone.ownerName)
            }
            if case .reference(var r) = s.fields[field.name]!, r.zoneID == nil {
                r.zoneID = RecordZoneID(zoneName: id.zoneID.zoneName, ownerName: id.zoneID.ownerName)
                s.fields[field.name] = .reference(r)
            }
        }
        s.recordChangeTag = record.recordChangeTag
        s.creationDate = record.created.map { Date(timeIntervalSince1970: Double($0.timestamp) / 1000) }
        s.modificationDate = record.modified.map { Date(timeIntervalSince1970: Double($0.timestamp) / 1000) }
        s.creatorUserRecordID = record.created.map { CKRecord.ID(recordName: $0.userRecordName == user ? CKCurrentUserDefaultName : $0.userRecordName) }
        s.lastModifiedUserRecordID = record.modified.map { CKRecord.ID(recordName: $0.userRecordName == user ? CKCurrentUserDefaultName : $0.userRecordName) }
        self.init(recordType: record.recordType, recordID: id, storage: s)
    }
}
