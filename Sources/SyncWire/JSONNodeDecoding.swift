import Foundation
import SyncCore

struct JSONNodeDecoding: Decoder {
    let node: JSONNode
    let path: JSONPathNode?

    var codingPath: [any CodingKey] { JSONPathNode.path(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = node else {
            throw mismatch([String: Any].self, found: node)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = node else {
            throw mismatch([Any].self, found: node)
        }
        return UnkeyedContainer(items: items, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type, found: JSONNode) -> DecodingError {
        if case .null = found {
            return .valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
        }
        if case .double = found, type is any FixedWidthInteger.Type {
            return .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected a whole number but found one with a fraction."))
        }
        return .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(found.kindDescription) instead."))
    }

    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self {
            switch node.jsonValue() {
            case .success(let value): return value as! T
            case .failure(let number):
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: codingPath + number.reversedPath.reversed(),
                    debugDescription: "Parsed JSON number \(Self.quoted(number.text)) does not fit in any number type."))
            }
        }
        if type == Data.self { return try unboxData() as! T }
        if type == URL.self { return try unboxURL() as! T }
        if type == Date.self { return Date(timeIntervalSinceReferenceDate: try unboxFloatingPoint(Double.self)) as! T }
        if type == Decimal.self { return try unboxDecimal() as! T }
        return try T(from: self)
    }

    private func unboxData() throws -> Data {
        guard case .string(let text) = node else { throw mismatch(String.self, found: node) }
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Encountered Data is not valid Base64."))
        }
        return data
    }

    private func unboxURL() throws -> URL {
        guard case .string(let text) = node else { throw mismatch(String.self, found: node) }
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Invalid URL string."))
        }
        return url
    }

    private func unboxDecimal() throws -> Decimal {
        switch node {
        case .integer(let value): return Decimal(value)
        case .unsigned(let value): return Decimal(value)
        case .double(let value): return Decimal(value)
        case .outOfRange(let text): throw outOfRange(text, Decimal.self)
        default: throw mismatch(Decimal.self, found: node)
        }
    }

    /// A number that the wanted type cannot hold, quoted as it was written.
    private func outOfRange(_ text: String, _ type: Any.Type) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Parsed JSON number \(Self.quoted(text)) does not fit in \(type)."))
    }

    /// A number as written, shortened for a message.
    static func quoted(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(37)) + "…" : text
    }

    func unboxInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let result: T?
        switch node {
        case .integer(let value): result = T(exactly: value)
        case .unsigned(let value): result = T(exactly: value)
        case .double(let value):
            // A fraction is the wrong kind of number, not a number out of range.
            guard value == value.rounded(.towardZero) else { throw mismatch(type, found: node) }
            result = T(exactly: value)
        case .outOfRange(let text): throw outOfRange(text, type)
        default: throw mismatch(type, found: node)
        }
        guard let result else { throw outOfRange(numberText, type) }
        return result
    }

    func unboxFloatingPoint<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
        switch node {
        case .integer(let value): return T(value)
        case .unsigned(let value): return T(value)
        case .double(let value):
            let converted = T(value)
            guard converted.isFinite else { throw outOfRange(numberText, type) }
            return converted
        case .outOfRange(let text):
            // An integer beyond 64 bits is an approximate double; 1e400 is no number at all.
            guard let value = Double(text), case let converted = T(value), converted.isFinite else { throw outOfRange(text, type) }
            return converted
        default: throw mismatch(type, found: node)
        }
    }

    private var numberText: String {
        switch node {
        case .integer(let value): String(value)
        case .unsigned(let value): String(value)
        case .double(let value): String(value)
        case .outOfRange(let text): text
        default: ""
        }
    }

    // MARK: Keyed

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: JSONNode]
        let path: JSONPathNode?

        var codingPath: [any CodingKey] { JSONPathNode.path(path) }
        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func child(_ key: Key) throws -> JSONNodeDecoding {
            guard let node = object[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
            }
            return JSONNodeDecoding(node: node, path: JSONPathNode(parent: path, key: AnyCodingKey(key)))
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try child(key).node { return true }
            return false
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            let key = AnyCodingKey("super")
            return JSONNodeDecoding(node: object["super"] ?? .null, path: JSONPathNode(parent: path, key: key))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONNodeDecoding(node: object[key.stringValue] ?? .null, path: JSONPathNode(parent: path, key: AnyCodingKey(key)))
        }
    }

    // MARK: Unkeyed

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [JSONNode]
        let path: JSONPathNode?
        var currentIndex = 0

        init(items: [JSONNode], path: JSONPathNode?) {
            self.items = items
            self.path = path
        }

        var codingPath: [any CodingKey] { JSONPathNode.path(path) }
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private mutating func next(_ type: Any.Type) throws -> JSONNodeDecoding {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type,
                    DecodingError.Context(
                        codingPath: JSONPathNode.path(JSONPathNode(parent: path, key: AnyCodingKey(index: currentIndex))),
                        debugDescription: "Unkeyed container is at end."))
            }
            let decoder = JSONNodeDecoding(node: items[currentIndex], path: JSONPathNode(parent: path, key: AnyCodingKey(index: currentIndex)))
            currentIndex += 1
            return decoder
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { return false }
            if case .null = items[currentIndex] {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try next(type).decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decode(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).unbox(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next([String: Any].self).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next([Any].self).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            try next(Any.self)
        }
    }
}

// MARK: Single value

extension JSONNodeDecoding: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let value) = node else { throw mismatch(type, found: node) }
        return value
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let value) = node else { throw mismatch(type, found: node) }
        return value
    }

    func decode(_ type: Double.Type) throws -> Double { try unboxFloatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try unboxFloatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try unboxInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unboxInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unboxInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unboxInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unboxInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try unboxInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(type) }
}
