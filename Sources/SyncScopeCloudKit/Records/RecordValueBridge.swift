import Foundation
import SyncCore

/// Turns CloudKit's field values into SyncScope's typed ``FieldValue``s and back.
///
/// References keep CloudKit's owner names here (`__defaultOwner__` for the current user);
/// the database maps them to and from the server's names when records cross.
enum RecordValueBridge {
    static func fieldValue(_ value: any CKRecordValueProtocol) -> FieldValue? {
        switch value {
        case let v as String: return .string(v)
        case let v as Bool: return .int64(v ? 1 : 0)
        case let v as Int: return .int64(Int64(v))
        case let v as Int32: return .int64(Int64(v))
        case let v as Int64: return .int64(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Date: return .timestamp(milliseconds(v))
        case let v as Data: return .bytes(v)
        case let v as CKReference: return .reference(reference(v))
        case let v as CKAsset: return .asset(v.descriptor)
        case let v as NSNumber: return number(v)
        case let v as NSString: return .string(v as String)
        case let v as NSDate: return .timestamp(milliseconds(v as Date))
        case let v as NSData: return .bytes(v as Data)
        case let v as [String]: return .list(.string, v.map { .string($0) })
        case let v as [Int]: return .list(.int64, v.map { .int64(Int64($0)) })
        case let v as [Int64]: return .list(.int64, v.map { .int64($0) })
        case let v as [Double]: return .list(.double, v.map { .double($0) })
        case let v as [Date]: return .list(.timestamp, v.map { .timestamp(milliseconds($0)) })
        case let v as [Data]: return .list(.bytes, v.map { .bytes($0) })
        case let v as [CKReference]: return .list(.reference, v.map { .reference(reference($0)) })
        case let v as [CKAsset]: return .list(.asset, v.map { .asset($0.descriptor) })
        case let v as [NSNumber]: return .list(.double, v.compactMap(number))
        default: return nil
        }
    }

    static func recordValue(_ value: FieldValue) -> (any CKRecordValueProtocol)? {
        switch value {
        case .string(let s): return s
        case .int64(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .bytes(let d), .encryptedBytes(let d): return d
        case .timestamp(let ms): return Date(timeIntervalSince1970: Double(ms) / 1000)
        case .reference(let r): return reference(r)
        case .asset(let a): return CKAsset(a)
        case .location: return nil
        case .list(let type, let items):
            switch type {
            case .string: return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            case .int64, .double: return items.compactMap { recordValue($0) as? NSNumber }
            case .timestamp: return items.compactMap { recordValue($0) as? Date }
            case .bytes, .encryptedBytes: return items.compactMap { recordValue($0) as? Data }
            case .reference: return items.compactMap { recordValue($0) as? CKReference }
            case .asset: return items.compactMap { recordValue($0) as? CKAsset }
            default: return nil
            }
        }
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private static func number(_ n: NSNumber) -> FieldValue {
        let d = n.doubleValue
        return d == d.rounded() && abs(d) < 9e15 ? .int64(n.int64Value) : .double(d)
    }

    private static func reference(_ r: CKReference) -> RecordReference {
        RecordReference(
            recordName: r.recordID.recordName,
            zoneID: RecordZoneID(zoneName: r.recordID.zoneID.zoneName, ownerName: r.recordID.zoneID.ownerName),
            action: r.action == .deleteSelf ? .deleteSelf : .none)
    }

    private static func reference(_ r: RecordReference) -> CKReference {
        let zone = r.zoneID.map { CKRecordZone.ID(zoneName: $0.zoneName, ownerName: $0.ownerName) } ?? .default
        return CKReference(recordID: CKRecord.ID(recordName: r.recordName, zoneID: zone), action: r.action == .deleteSelf ? .deleteSelf : .none)
    }

    /// Rewrites the owner names of references: `map` gets each reference's zone ID.
    static func mappingReferences(_ value: FieldValue, _ map: (RecordZoneID) -> RecordZoneID) -> FieldValue {
        switch value {
        case .reference(var r):
            r.zoneID = r.zoneID.map(map)
            return .reference(r)
        case .list(let type, let items) where type == .reference:
            return .list(type, items.map { mappingReferences($0, map) })
        default: return value
        }
    }
}
