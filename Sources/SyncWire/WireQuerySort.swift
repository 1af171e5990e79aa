import SyncCore

/// A sort descriptor on the wire: `{"fieldName", "ascending"?}` (ascending by default).
public struct WireQuerySort: Codable, Sendable, Hashable {
    public var fieldName: String
    public var ascending: Bool?

    public init(fieldName: String, ascending: Bool? = nil) {
        self.fieldName = fieldName
        self.ascending = ascending
    }
}
