import SyncWire

/// Reading request and answer bodies in the feed, leniently: a missing or
/// mistyped value reads as `nil`, never as an error (the doctor reads what
/// clients sent, whatever it is).
extension JSONValue {
    subscript(_ key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var array: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// `zoneID.zoneName` of an object that has one.
    var zoneName: String? { self["zoneID"]?["zoneName"]?.string }

    /// `zoneID.ownerRecordName` of an object that has one (a shared zone's owner; absent: the caller's own zone).
    var zoneOwner: String? { self["zoneID"]?["ownerRecordName"]?.string }
}
