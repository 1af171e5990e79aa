import Foundation
import SyncCore

/// A `Decoder` over a parsed ``JSONNode``: the wire decoder.
///
/// It behaves like `JSONDecoder` with its default strategies (`Data` as
/// base64, `Date` as seconds since the reference date, `URL` as a string)
/// and throws the same `DecodingError`s with the same coding paths, so error
/// messages name the key path exactly as before. What it does differently:
/// a ``JSONValue`` is taken from the parsed node as it is, in one step,
/// instead of being guessed by trying one type after another; and the coding
/// path is built only when an error or a caller asks for it.
struct JSONNodeDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from node: JSONNode) throws -> T {
        try JSONNodeDecoding(node: node, path: nil).unbox(type)
    }
}
