import Foundation
import SyncCore

/// Encodes and decodes wire dictionaries the one way the project does:
/// keys sorted and slashes unescaped, so the same value always gives the same
/// bytes (transcripts, golden files and tests compare them).
public enum WireJSON {
    /// Compact, key-sorted JSON.
    public static func encode<T: Encodable>(_ value: T) throws(CloudError) -> Data {
        try encode(value, prettyPrinted: false)
    }

    /// Key-sorted JSON, indented for people when `prettyPrinted`.
    public static func encode<T: Encodable>(_ value: T, prettyPrinted: Bool) throws(CloudError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted
            ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch let error as EncodingError {
            throw CloudError(.internalError, "The response could not be written as JSON: \(describe(error)).")
        } catch {
            throw CloudError(.internalError, "The response could not be written as JSON: \(error).")
        }
    }

    /// `encode` as a UTF-8 string.
    public static func string<T: Encodable>(_ value: T, prettyPrinted: Bool = false) throws(CloudError) -> String {
        String(decoding: try encode(value, prettyPrinted: prettyPrinted), as: UTF8.self)
    }

    /// Decodes a wire dictionary; bad JSON or a missing or mistyped key is an
    /// `invalidArguments` error whose reason names the key path.
    ///
    /// The text is parsed once (strict JSON, at most 512 levels deep) and
    /// decoded from that tree, so a ``JSONValue`` inside is read as it is,
    /// never guessed. A number no Swift number holds (`1e400`, `2^64` where an
    /// `Int64` belongs) is named, with its key path, as out of range.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(CloudError) -> T {
        let node: JSONNode
        do {
            node = try JSONParser.parse(data)
        } catch {
            throw CloudError(.invalidArguments, "The request body is not valid: the text is not JSON (\(error)).")
        }
        do {
            return try JSONNodeDecoder.decode(type, from: node)
        } catch let error as DecodingError {
            throw CloudError(.invalidArguments, "The request body is not valid: \(describe(error)).")
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.invalidArguments, "The request body is not valid.")
        }
    }

    /// `decode` from a string.
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws(CloudError) -> T {
        try decode(type, from: Data(text.utf8))
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return "'\(text)'"
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let at = context.codingPath.isEmpty ? "" : " in \(path(context.codingPath))"
            return "the key '\(key.stringValue)' is missing\(at)"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) should be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null but should be \(typeName(type))"
        case .dataCorrupted(let context):
            let detail = plain(context)
            if let number = outOfRangeNumber(context) {
                let at = context.codingPath.isEmpty ? "" : " at \(path(context.codingPath))"
                return "the number \(number)\(at) is out of range (integers must fit in 64 bits, decimals in a double)"
            }
            if context.codingPath.isEmpty {
                return "the text is not JSON\(detail.flatMap { $0.contains("not valid JSON") ? nil : " (\($0))" } ?? "")"
            }
            return "\(path(context.codingPath)) is not valid\(detail.map { " (\($0))" } ?? "")"
        @unknown default:
            return "it does not have the expected shape"
        }
    }

    static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(let value, let context):
            "\(path(context.codingPath)) holds \(value), which JSON cannot represent"
        @unknown default:
            "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [Any].Type: "a list"
        default:
            String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }

    /// The number a decoder could not hold (`2^64`, `1e400`), if that is what went wrong.
    private static func outOfRangeNumber(_ context: DecodingError.Context) -> String? {
        let texts = [context.debugDescription, context.underlyingError.map { "\($0)" } ?? ""]
        for text in texts {
            guard text.contains("not representable") || text.contains("out of range") || text.contains("does not fit") else { continue }
            if let range = text.range(of: #"[Nn]umber -?[0-9][0-9.eE+\-]*"#, options: .regularExpression) {
                return String(text[range].dropFirst(7).prefix(40))
            }
            return "given"
        }
        return nil
    }

    /// The decoder's own words, when they name no types of the program.
    private static func plain(_ context: DecodingError.Context) -> String? {
        let text = context.debugDescription.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, !text.contains("Swift"), !text.contains("<"), !text.contains("Optional("), !text.contains("Dictionary"),
              !text.contains("Array"), !text.contains("Foundation"), !text.contains("Error Domain")
        else { return nil }
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
