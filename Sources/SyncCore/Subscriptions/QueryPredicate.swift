

/// The filters of a query, ANDed; no filters match every record
/// (`NSPredicate(value: true)`).
public struct QueryPredicate: Sendable, Hashable, CustomStringConvertible {
    public var filters: [QueryFilter]

    public init(_ filters: [QueryFilter] = []) {
        self.filters = filters
    }

    /// Matches every record.
    public static let all = QueryPredicate()

    public func matches(_ fields: RecordFields) -> Bool {
        filters.allSatisfy { $0.matches(fields) }
    }

    public func validate() throws(CloudError) {
        for filter in filters { try filter.validate() }
    }

    public var description: String {
        filters.isEmpty
            ? "TRUEPREDICATE"
            : filters.map { "\($0.fieldName) \($0.comparator.rawValue) \($0.fieldValue.displayString)" }.joined(separator: " AND ")
    }
}
