import Foundation
import SyncCore

/// A parsed JSON document as the wire decoder walks it.
///
/// Every value's kind is decided once, by its first byte, while parsing:
/// nothing downstream guesses by trying one type after another. Integers
/// keep their exact value (`Int64`, or `UInt64` above `Int64.max`), so
/// 64-bit tags and incarnations survive a checkpoint unchanged.
enum JSONNode: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A whole number above `Int64.max` that fits a `UInt64`.
    case unsigned(UInt64)
    case double(Double)
    /// Valid JSON, but a number no Swift number type holds (`1e400`, an
    /// integer beyond `UInt64`), kept as written so errors can quote it.
    case outOfRange(String)
    case string(String)
    case array([JSONNode])
    case object([String: JSONNode])

    /// The same value as a ``JSONValue``. Numbers become what `JSONValue`
    /// documents: an integer when the value is a whole number that fits an
    /// `Int64`, a double otherwise. A number out of range has no `JSONValue`:
    /// its text is returned as the error.
    func jsonValue() -> Result<JSONValue, OutOfRangeNumber> {
        switch self {
        case .null: return .success(.null)
        case .bool(let value): return .success(.bool(value))
        case .integer(let value): return .success(.integer(value))
        case .unsigned(let value): return .success(.double(Double(value)))
        case .double(let value): return .success(.double(value))
        case .outOfRange(let text):
            // An integer beyond 64 bits is still a double; 1e400 is nothing.
            if let value = Double(text), value.isFinite { return .success(.double(value)) }
            return .failure(OutOfRangeNumber(text: text))
        case .string(let value): return .success(.string(value))
        case .array(let items):
            var values: [JSONValue] = []
            values.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                switch item.jsonValue() {
                case .success(let value): values.append(value)
                case .failure(var error):
                    error.reversedPath.append(AnyCodingKey(index: index))
                    return .failure(error)
                }
            }
            return .success(.array(values))
        case .object(let object):
            var values: [String: JSONValue] = [:]
            values.reserveCapacity(object.count)
            for (key, item) in object {
                switch item.jsonValue() {
                case .success(let value): values[key] = value
                case .failure(var error):
                    error.reversedPath.append(AnyCodingKey(key))
                    return .failure(error)
                }
            }
            return .success(.object(values))
        }
    }

    struct OutOfRangeNumber: Error {
        var text: String
        /// Where it is, below the value converted, innermost key first.
        var reversedPath: [AnyCodingKey] = []
    }

    /// How error messages name this kind of value.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .integer, .unsigned, .double, .outOfRange: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
