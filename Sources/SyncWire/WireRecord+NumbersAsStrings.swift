import SyncCore

extension WireRecord {
    /// The same record with its `INT64` and `DOUBLE` values (and lists of
    /// them) written as strings: what `numbersAsStrings` asks for.
    public func numbersAsStrings() -> WireRecord {
        guard let fields else { return self }
        var copy = self
        var converted: [String: WireField] = [:]
        converted.reserveCapacity(fields.count)
        for (name, field) in fields {
            var field = field
            switch field.type {
            case "INT64", "DOUBLE", "INT64_LIST", "DOUBLE_LIST": field.value = field.value.map(Self.stringified)
            default: break
            }
            converted[name] = field
        }
        copy.fields = converted
        return copy
    }

    private static func stringified(_ value: JSONValue) -> JSONValue {
        switch value {
        case .integer(let i): .string(String(i))
        case .double(let d): .string(String(d))
        case .array(let items): .array(items.map(stringified))
        default: value
        }
    }
}
