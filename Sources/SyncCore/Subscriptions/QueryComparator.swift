/// The comparators of a query filter, spelled as CloudKit Web Services spells them.
public enum QueryComparator: String, Sendable, Hashable, Codable, CaseIterable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    /// The field's value is one of the filter's list.
    case `in` = "IN"
    /// The field's value is none of the filter's list.
    case notIn = "NOT_IN"
    /// The field is a string starting with the filter's string.
    case beginsWith = "BEGINS_WITH"
    /// The field is a list holding the filter's value.
    case listContains = "LIST_CONTAINS"

    var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals: true
        default: false
        }
    }
}
