import Foundation

/// A value a record's field can hold, as CloudKit's `CKRecordValueProtocol`: strings, numbers,
/// dates, data, references, assets and lists of them.
///
/// Integers and doubles read back as `NSNumber` (as on Apple's systems, so `as? Int`,
/// `as? Int64` and `as? Double` work); dates to the millisecond the server keeps.
public protocol CKRecordValueProtocol {}

/// CloudKit's name for a field's value type.
public typealias CKRecordValue = any CKRecordValueProtocol

extension String: CKRecordValueProtocol {}
extension Int: CKRecordValueProtocol {}
extension Int32: CKRecordValueProtocol {}
extension Int64: CKRecordValueProtocol {}
extension Bool: CKRecordValueProtocol {}
extension Double: CKRecordValueProtocol {}
extension Float: CKRecordValueProtocol {}
extension Date: CKRecordValueProtocol {}
extension Data: CKRecordValueProtocol {}
extension NSNumber: CKRecordValueProtocol {}
extension NSString: CKRecordValueProtocol {}
extension NSDate: CKRecordValueProtocol {}
extension NSData: CKRecordValueProtocol {}
extension Array: CKRecordValueProtocol where Element: CKRecordValueProtocol {}

/// Reads and writes a record's fields by key, as CloudKit's `CKRecordKeyValueSetting`:
/// a record itself, and its `encryptedValues`.
public protocol CKRecordKeyValueSetting: AnyObject {
    subscript(key: String) -> (any CKRecordValueProtocol)? { get set }
    func object(forKey key: String) -> (any CKRecordValueProtocol)?
    func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: String)
    func allKeys() -> [String]
    func changedKeys() -> [String]
}
