import Foundation
import SyncCore

/// Any JSON value, kept exactly as it came: the raw material of wire
/// dictionaries whose meaning depends on a neighbouring key (a field's
/// `value` depends on its `type`).
///
/// Numbers are split into ``integer(_:)`` and ``double(_:)``: a JSON number
/// that fits an `Int64` exactly is an integer (so `3` and `3.0` both are, as
/// `JSONDecoder` does not tell them apart); any other number is a double.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decoding from a generic `Decoder` (Foundation's `JSONDecoder`, say)
    /// has to find the kind by trying each in turn; `WireJSON.decode(_:from:)`
    /// never comes here: its decoder hands over the parsed value as it is.
    public init(from decoder: any Decoder) throws {
        if let nodeDecoder = decoder as? JSONNodeDecoding {
            self = try nodeDecoder.unbox(JSONValue.self)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var result: [String: JSONValue] = [:]
            for key in object.allKeys {
                result[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
            }
            self = .object(result)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var result: [JSONValue] = []
            if let count = array.count { result.reserveCapacity(count) }
            while !array.isAtEnd { result.append(try array.decode(JSONValue.self)) }
            self = .array(result)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for key in object.keys.sorted() {
                try container.encode(object[key], forKey: AnyCodingKey(key))
            }
        case .array(let array):
            var container = encoder.unkeyedContainer()
            for item in array { try container.encode(item) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// A short rendering for error messages: JSON-like, cut after a few dozen characters.
    public var description: String {
        let full = rendered
        return full.count > 40 ? String(full.prefix(37)) + "…" : full
    }

    private var rendered: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): "\"\(value)\""
        case .array(let items): "[" + items.map(\.rendered).joined(separator: ", ") + "]"
        case .object(let object):
            "{" + object.keys.sorted().map { "\"\($0)\": \(object[$0]?.rendered ?? "")" }.joined(separator: ", ") + "}"
        }
    }

    /// What kind of JSON value this is, for error messages ("a string", "an object").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .double: "a number with a fraction"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// A coding key for any string.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(_ key: some CodingKey) {
        stringValue = key.stringValue
        intValue = key.intValue
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
