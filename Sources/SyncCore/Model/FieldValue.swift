import Foundation

/// A typed field value. Lists keep their element type so that an empty list
/// still knows what it is a list of.
public enum FieldValue: Sendable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case bytes(Data)
    /// `ENCRYPTED_BYTES`: bytes encrypted by the client, stored and returned as they are.
    case encryptedBytes(Data)
    /// Milliseconds since 1970-01-01T00:00:00Z, as CloudKit Web Services sends them.
    case timestamp(Int64)
    indirect case reference(RecordReference)
    indirect case location(Location)
    indirect case asset(AssetDescriptor)
    indirect case list(FieldType, [FieldValue])

    /// The CloudKit Web Services type name, for example `STRING` or `INT64_LIST`.
    public var typeName: String {
        switch self {
        case .list(let element, _): element.listName
        default: elementType.rawValue
        }
    }

    /// The scalar type, or the element type of a list.
    public var elementType: FieldType {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .bytes: .bytes
        case .encryptedBytes: .encryptedBytes
        case .timestamp: .timestamp
        case .reference: .reference
        case .location: .location
        case .asset: .asset
        case .list(let element, _): element
        }
    }

    /// A short, human-readable rendering for transcripts and the inspector.
    public var displayString: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .int64(let i): return String(i)
        case .double(let d): return String(d)
        case .bytes(let d): return "<\(d.count) bytes>"
        case .encryptedBytes(let d): return "<\(d.count) encrypted bytes>"
        case .timestamp(let ms): return "@\(ms)"
        case .reference(let r): return "→\(r.recordName)"
        case .location(let l): return "(\(l.latitude), \(l.longitude))"
        case .asset(let a): return "asset \(a.fileChecksum)"
        case .list(_, let items): return "[" + items.map(\.displayString).joined(separator: ", ") + "]"
        }
    }

    /// Approximate encoded size in bytes, used for payload limits.
    public var approximateSize: Int {
        switch self {
        case .string(let s): return s.utf8.count + 2
        case .int64, .double, .timestamp: return 20
        case .bytes(let d), .encryptedBytes(let d): return (d.count * 4 + 2) / 3 + 2
        case .reference(let r): return r.recordName.utf8.count + 40
        case .location: return 48
        case .asset(let a): return a.fileChecksum.utf8.count + (a.downloadURL?.utf8.count ?? 0) + 40
        case .list(_, let items): return items.reduce(2) { $0 + $1.approximateSize + 1 }
        }
    }
}

extension FieldValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int64(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
}
