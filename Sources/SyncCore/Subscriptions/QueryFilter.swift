/// One condition of a query: `fieldName comparator fieldValue`.
public struct QueryFilter: Sendable, Hashable {
    public var comparator: QueryComparator
    public var fieldName: String
    public var fieldValue: FieldValue

    public init(_ fieldName: String, _ comparator: QueryComparator, _ fieldValue: FieldValue) {
        self.comparator = comparator
        self.fieldName = fieldName
        self.fieldValue = fieldValue
    }

    /// Whether a record with these fields satisfies this filter.
    ///
    /// A record without the field satisfies no filter (not even `NOT_EQUALS`
    /// or `NOT_IN`), and values of different types are never equal or ordered,
    /// except that `INT64` and `DOUBLE` compare as numbers.
    public func matches(_ fields: RecordFields) -> Bool {
        guard let value = fields[fieldName] else { return false }
        switch comparator {
        case .equals:
            return Self.equal(value, fieldValue)
        case .notEquals:
            return Self.comparable(value, fieldValue) && !Self.equal(value, fieldValue)
        case .lessThan:
            return Self.order(value, fieldValue).map { $0 < 0 } ?? false
        case .lessThanOrEquals:
            return Self.order(value, fieldValue).map { $0 <= 0 } ?? false
        case .greaterThan:
            return Self.order(value, fieldValue).map { $0 > 0 } ?? false
        case .greaterThanOrEquals:
            return Self.order(value, fieldValue).map { $0 >= 0 } ?? false
        case .in:
            guard case .list(_, let items) = fieldValue else { return false }
            return items.contains { Self.equal(value, $0) }
        case .notIn:
            guard case .list(_, let items) = fieldValue else { return false }
            return !items.contains { Self.equal(value, $0) }
        case .beginsWith:
            guard case .string(let s) = value, case .string(let prefix) = fieldValue else { return false }
            return s.hasPrefix(prefix)
        case .listContains:
            guard case .list(_, let items) = value else { return false }
            return items.contains { Self.equal($0, fieldValue) }
        }
    }

    /// Checks that the filter makes sense, naming the rule it breaks.
    public func validate() throws(CloudError) {
        let name = fieldName
        let valid = !name.isEmpty && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
            && name.unicodeScalars.first.map { $0.properties.isAlphabetic } == true
        guard valid else {
            throw CloudError(
                .invalidArguments,
                "'\(name)' is not a valid field name for a query filter: use ASCII letters, digits and '_', starting with a letter.")
        }
        let what = "\(comparator.rawValue) on '\(name)'"
        if comparator.isOrdering {
            switch fieldValue {
            case .string, .int64, .double, .timestamp: break
            default:
                throw CloudError(
                    .invalidArguments,
                    "\(what) needs a STRING, INT64, DOUBLE or TIMESTAMP value to order by; \(fieldValue.typeName) values have no order.")
            }
        }
        switch comparator {
        case .in, .notIn:
            guard case .list = fieldValue else {
                throw CloudError(.invalidArguments, "\(what) needs a list of values; got a \(fieldValue.typeName).")
            }
        case .beginsWith:
            guard case .string = fieldValue else {
                throw CloudError(.invalidArguments, "\(what) needs a STRING prefix; got a \(fieldValue.typeName).")
            }
        case .listContains:
            if case .list = fieldValue {
                throw CloudError(.invalidArguments, "\(what) needs a single value to look for in the list field; got a \(fieldValue.typeName).")
            }
        default: break
        }
    }

    private static func number(_ value: FieldValue) -> Double? {
        switch value {
        case .int64(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    static func comparable(_ a: FieldValue, _ b: FieldValue) -> Bool {
        (number(a) != nil && number(b) != nil) || a.typeName == b.typeName
    }

    static func equal(_ a: FieldValue, _ b: FieldValue) -> Bool {
        switch (a, b) {
        case (.int64(let x), .int64(let y)): return x == y
        case (.int64, .double), (.double, .int64), (.double, .double):
            guard let x = number(a), let y = number(b) else { return false }
            return x == y
        default: return a == b
        }
    }

    /// -1, 0 or 1; `nil` when the two values have no common order.
    static func order(_ a: FieldValue, _ b: FieldValue) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.string(let x), .string(let y)): return sign(x, y)
        case (.int64(let x), .int64(let y)): return sign(x, y)
        case (.timestamp(let x), .timestamp(let y)): return sign(x, y)
        case (.int64, .double), (.double, .int64), (.double, .double):
            guard let x = number(a), let y = number(b), !x.isNaN, !y.isNaN else { return nil }
            return sign(x, y)
        default: return nil
        }
    }
}
