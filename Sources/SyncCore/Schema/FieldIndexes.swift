/// The indexes a field has, as CloudKit's schema language names them.
///
/// `QUERYABLE` lets a query filter on the field, `SORTABLE` lets it sort by
/// it, `SEARCHABLE` lets a text search find words in a `STRING`.
public struct FieldIndexes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let queryable = FieldIndexes(rawValue: 1)
    public static let sortable = FieldIndexes(rawValue: 2)
    public static let searchable = FieldIndexes(rawValue: 4)

    /// Each index with its keyword, in the order the schema language writes them.
    public static let keywords: [(index: FieldIndexes, keyword: String)] = [
        (.queryable, "QUERYABLE"), (.sortable, "SORTABLE"), (.searchable, "SEARCHABLE"),
    ]

    /// The keywords of the indexes held, in schema-language order.
    public var names: [String] { Self.keywords.filter { contains($0.index) }.map(\.keyword) }
}
