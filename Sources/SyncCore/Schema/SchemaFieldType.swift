/// A field's type in a schema, as CloudKit's schema language spells it:
/// `STRING`, `INT64`, `DOUBLE`, `TIMESTAMP`, `BYTES`, `REFERENCE`, `ASSET`,
/// `LOCATION`, an `ENCRYPTED` one of `BYTES`, `STRING`, `DOUBLE`, `INT64`,
/// `LOCATION` and `TIMESTAMP`, or a `LIST<…>` of any of these.
///
/// An encrypted field's values travel as `ENCRYPTED_BYTES` (the client
/// encrypts them; the server never sees the plain type), so an `ENCRYPTED`
/// field takes `ENCRYPTED_BYTES` values whatever its plain type.
public struct SchemaFieldType: Sendable, Hashable, CustomStringConvertible {
    /// The plain types of the schema language.
    public enum Primitive: String, Sendable, Hashable, CaseIterable {
        case asset = "ASSET"
        case bytes = "BYTES"
        case double = "DOUBLE"
        case int64 = "INT64"
        case location = "LOCATION"
        case reference = "REFERENCE"
        case string = "STRING"
        case timestamp = "TIMESTAMP"

        /// The plain types CloudKit can encrypt (not `ASSET`, encrypted anyway, nor `REFERENCE`, which the server reads).
        public var canBeEncrypted: Bool { self != .asset && self != .reference }
    }

    public var primitive: Primitive
    public var isEncrypted: Bool
    public var isList: Bool

    public init(_ primitive: Primitive, encrypted: Bool = false, list: Bool = false) {
        self.primitive = primitive
        isEncrypted = encrypted
        isList = list
    }

    /// The type a development schema gives a field first saved with this value.
    /// An empty list's element type comes from the list itself.
    public init(firstValue value: FieldValue) {
        let element = value.elementType
        let list: Bool
        if case .list = value { list = true } else { list = false }
        switch element {
        case .encryptedBytes: self.init(.bytes, encrypted: true, list: list)
        case .string: self.init(.string, list: list)
        case .int64: self.init(.int64, list: list)
        case .double: self.init(.double, list: list)
        case .bytes: self.init(.bytes, list: list)
        case .timestamp: self.init(.timestamp, list: list)
        case .reference: self.init(.reference, list: list)
        case .location: self.init(.location, list: list)
        case .asset: self.init(.asset, list: list)
        }
    }

    /// Whether a field of this type takes the value (without allocating).
    public func accepts(_ value: FieldValue) -> Bool {
        let isListValue: Bool
        if case .list = value { isListValue = true } else { isListValue = false }
        guard isListValue == isList else { return false }
        let element = value.elementType
        if isEncrypted { return element == .encryptedBytes }
        switch primitive {
        case .asset: return element == .asset
        case .bytes: return element == .bytes
        case .double: return element == .double
        case .int64: return element == .int64
        case .location: return element == .location
        case .reference: return element == .reference
        case .string: return element == .string
        case .timestamp: return element == .timestamp
        }
    }

    /// The indexes a field of this type can have. Encrypted fields have none
    /// (CloudKit indexes no encrypted field); `ASSET` and `BYTES` none;
    /// `SEARCHABLE` is for `STRING` (and lists of them); lists and locations
    /// and references are not sortable.
    public var allowedIndexes: FieldIndexes {
        if isEncrypted { return [] }
        switch primitive {
        case .asset, .bytes: return []
        case .string: return isList ? [.queryable, .searchable] : [.queryable, .sortable, .searchable]
        case .int64, .double, .timestamp: return isList ? [.queryable] : [.queryable, .sortable]
        case .location, .reference: return [.queryable]
        }
    }

    /// In the schema language: `STRING`, `ENCRYPTED STRING`, `LIST<INT64>`.
    public var description: String {
        let plain = isEncrypted ? "ENCRYPTED \(primitive.rawValue)" : primitive.rawValue
        return isList ? "LIST<\(plain)>" : plain
    }
}
