
/// The fields of a record, kept sorted by name.
///
/// A sorted array rather than a dictionary: records have few fields, and the
/// server can hand the same storage to every fetch without copying it.
public struct RecordFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public private(set) var storage: [Field]

    public init() { storage = [] }

    public init(_ fields: some Sequence<Field>) {
        storage = []
        for field in fields { self[field.name] = field.value }
    }

    /// Fields already sorted by name, each name once (checked in debug builds).
    package init(sortedUniqueFields fields: [Field]) {
        assert(zip(fields, fields.dropFirst()).allSatisfy { $0.name < $1.name }, "fields not sorted by name, or a name twice")
        storage = fields
    }

    public init(_ dictionary: [String: FieldValue]) {
        storage = dictionary.map { Field(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
    }

    public init(dictionaryLiteral elements: (String, FieldValue)...) {
        self.init(elements.map { Field(name: $0.0, value: $0.1) })
    }

    public var startIndex: Int { storage.startIndex }
    public var endIndex: Int { storage.endIndex }
    public subscript(position: Int) -> Field { storage[position] }

    public var names: [String] { storage.map(\.name) }

    private func index(of name: String) -> (found: Bool, index: Int) {
        var low = 0
        var high = storage.count
        while low < high {
            let mid = (low + high) / 2
            if storage[mid].name < name { low = mid + 1 } else { high = mid }
        }
        return (low < storage.count && storage[low].name == name, low)
    }

    public subscript(name: String) -> FieldValue? {
        get {
            let (found, i) = index(of: name)
            return found ? storage[i].value : nil
        }
        set {
            let (found, i) = index(of: name)
            switch (found, newValue) {
            case (true, let value?): storage[i].value = value
            case (true, nil): storage.remove(at: i)
            case (false, let value?): storage.insert(Field(name: name, value: value), at: i)
            case (false, nil): break
            }
        }
    }

    /// These fields with every field of `other` written over them.
    public func merging(_ other: RecordFields) -> RecordFields {
        var result = self
        for field in other.storage { result[field.name] = field.value }
        return result
    }

    /// Only the named fields; `nil` keeps all of them.
    ///
    /// Called once per record of a fetch, so it allocates nothing beyond the
    /// result: the fields are few and already sorted, so each wanted key is
    /// found by binary search.
    public func filtered(to keys: [String]?) -> RecordFields {
        guard let keys else { return self }
        var result = RecordFields()
        guard !keys.isEmpty, !storage.isEmpty else { return result }
        result.storage.reserveCapacity(Swift.min(keys.count, storage.count))
        for key in keys {
            let (found, i) = index(of: key)
            if found, !result.storage.contains(where: { $0.name == key }) { result.storage.append(storage[i]) }
        }
        result.storage.sort { $0.name < $1.name }
        return result
    }

    public var dictionary: [String: FieldValue] {
        Dictionary(uniqueKeysWithValues: storage.map { ($0.name, $0.value) })
    }
}
