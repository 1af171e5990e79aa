import SyncCore

/// A query on the wire: `{"recordType", "filterBy": [...], "sortBy": [...]}`
/// (subscriptions use `recordType` and `filterBy`; `records/query` all three).
public struct WireQuery: Codable, Sendable, Hashable {
    public var recordType: String
    public var filterBy: [WireQueryFilter]?
    public var sortBy: [WireQuerySort]?

    public init(recordType: String, filterBy: [WireQueryFilter]? = nil, sortBy: [WireQuerySort]? = nil) {
        self.recordType = recordType
        self.filterBy = filterBy
        self.sortBy = sortBy
    }

    /// The filters, ANDed; `invalidArguments` naming the filter that is wrong.
    public func predicate(context: String = "") throws(CloudError) -> QueryPredicate {
        var filters: [QueryFilter] = []
        for (index, filter) in (filterBy ?? []).enumerated() {
            guard let comparator = QueryComparator(rawValue: filter.comparator) else {
                let known = QueryComparator.allCases.map(\.rawValue).joined(separator: ", ")
                throw CloudError(.invalidArguments, "\(context)filterBy[\(index)]: '\(filter.comparator)' is not a comparator; use one of \(known).")
            }
            let value = try filter.fieldValue.fieldValue(name: "filterBy[\(index)].fieldValue")
            filters.append(QueryFilter(filter.fieldName, comparator, value))
        }
        return QueryPredicate(filters)
    }

    /// The whole query: type, filters and sort descriptors.
    public func recordQuery() throws(CloudError) -> RecordQuery {
        RecordQuery(
            recordType: recordType, predicate: try predicate(),
            sortBy: (sortBy ?? []).map { RecordQuery.Sort($0.fieldName, ascending: $0.ascending ?? true) })
    }
}
