import SyncCore

/// A query filter on the wire: `{"comparator", "fieldName", "fieldValue": {"value", "type"?}}`.
public struct WireQueryFilter: Codable, Sendable, Hashable {
    public var comparator: String
    public var fieldName: String
    public var fieldValue: WireField

    public init(comparator: String, fieldName: String, fieldValue: WireField) {
        self.comparator = comparator
        self.fieldName = fieldName
        self.fieldValue = fieldValue
    }
}
