// A contacts app's model, written as Apple's CKSyncEngine sample writes its own; it compiles
// against CloudKit on Apple's systems and against SyncScopeCloudKit elsewhere.
#if canImport(CloudKit)
import CloudKit
#else
import SyncScopeCloudKit
#endif
import Foundation

struct Contact: Codable, Identifiable, Sendable, Equatable {
    static let recordType: CKRecord.RecordType = "Contact"

    var id: String
    var name: String
    /// When the user last changed this contact: the newer change wins a conflict.
    var userModificationDate: Date
    /// The record as the server last had it (its system fields): the next save sends its change tag.
    var lastKnownRecord: CKRecord?

    init(id: String, name: String, userModificationDate: Date) {
        self.id = id
        self.name = name
        self.userModificationDate = userModificationDate
    }

    init(record: CKRecord) {
        id = record.recordID.recordName
        name = ""
        userModificationDate = .distantPast
        mergeFromServerRecord(record)
        setLastKnownRecordIfNewer(record)
    }

    /// Takes the server's values when the server's change is newer.
    mutating func mergeFromServerRecord(_ record: CKRecord) {
        let serverDate = record.encryptedValues[.contact_userModificationDate] as? Date ?? .distantPast
        if serverDate > userModificationDate {
            userModificationDate = serverDate
            if let serverName = record.encryptedValues[.contact_name] as? String { name = serverName }
        }
    }

    func populateRecord(_ record: CKRecord) {
        record.encryptedValues[.contact_name] = name
        record.encryptedValues[.contact_userModificationDate] = userModificationDate
    }

    mutating func setLastKnownRecordIfNewer(_ otherRecord: CKRecord) {
        if let localDate = lastKnownRecord?.modificationDate {
            if let otherDate = otherRecord.modificationDate, localDate < otherDate { lastKnownRecord = otherRecord }
        } else {
            lastKnownRecord = otherRecord
        }
    }

    // MARK: Codable, with the record's system fields kept by secure coding

    private enum CodingKeys: String, CodingKey {
        case id, name, userModificationDate, lastKnownRecordData
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        userModificationDate = try container.decode(Date.self, forKey: .userModificationDate)
        if let data = try container.decodeIfPresent(Data.self, forKey: .lastKnownRecordData) {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = true
            lastKnownRecord = CKRecord(coder: unarchiver)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(userModificationDate, forKey: .userModificationDate)
        if let lastKnownRecord {
            let archiver = NSKeyedArchiver(requiringSecureCoding: true)
            lastKnownRecord.encodeSystemFields(with: archiver)
            try container.encode(archiver.encodedData, forKey: .lastKnownRecordData)
        }
    }

    static func == (lhs: Contact, rhs: Contact) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.userModificationDate == rhs.userModificationDate
    }
}

extension CKRecord.FieldKey {
    static let contact_name = "name"
    static let contact_userModificationDate = "userModificationDate"
}

/// Everything the app keeps on disk: its contacts and the sync engine's state.
struct AppData: Codable, Sendable {
    var contacts: [String: Contact] = [:]
    var stateSerialization: CKSyncEngine.State.Serialization?
    /// Zones fetched to the end at least once since they were last deleted: a fetch of any
    /// other zone starts from no change token, so it reports records, never deletions.
    var fetchedZones: Set<String> = []
}
