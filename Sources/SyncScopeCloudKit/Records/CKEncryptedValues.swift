import Foundation
import SyncCore
import SyncWire

/// A record's `encryptedValues`: fields the server stores as `ENCRYPTED_BYTES`, which it
/// never reads (so neither queries nor indexes see them). Values are kept in the record and
/// read back as the type they were written as.
final class CKEncryptedValues: CKRecordKeyValueSetting {
    let record: CKRecord

    init(record: CKRecord) {
        self.record = record
    }

    subscript(key: String) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    func object(forKey key: String) -> (any CKRecordValueProtocol)? {
        guard case .encryptedBytes(let data)? = record.fieldValue(forKey: key),
            let field = try? WireJSON.decode(WireField.self, from: data), let value = try? field.fieldValue(name: key)
        else { return nil }
        return RecordValueBridge.recordValue(value)
    }

    func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: String) {
        let sealed = object.flatMap(RecordValueBridge.fieldValue).flatMap { try? WireJSON.encode(WireField($0)) }
        record.set(sealed.map(FieldValue.encryptedBytes), forKey: key)
    }

    func allKeys() -> [String] {
        record.allKeys().filter { if case .encryptedBytes? = record.fieldValue(forKey: $0) { true } else { false } }
    }

    func changedKeys() -> [String] {
        let encrypted = Set(allKeys())
        return record.changedKeys().filter(encrypted.contains)
    }
}
