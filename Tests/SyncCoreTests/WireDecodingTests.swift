import Foundation
import SyncCore
import SyncWire
import Testing

/// The reason of the `CloudError` that decoding `text` as `T` throws, or `nil`.
private func reason<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
    do {
        _ = try WireJSON.decode(type, from: text)
        return nil
    } catch {
        return error.reason
    }
}

private struct Numbers: Codable, Equatable {
    var int: Int
    var int64: Int64
    var uint64: UInt64
    var double: Double
    var optional: Int?
}

private struct Nested: Codable, Equatable {
    var name: String
    var tags: [String]
    var children: [Nested]
    var blob: Data?
    var meta: [String: JSONValue]?
}

@Suite struct WireDecodingTests {
    @Test func jsonValuesAreReadAsTheyAreWrittenWithoutGuessing() throws {
        let text = #"{"a": null, "b": true, "c": 3, "d": 3.0, "e": 2.5, "f": "x", "g": [1, "two", false], "h": {"i": -9223372036854775808}, "j": 18446744073709551616, "k": 1e3}"#
        let value = try WireJSON.decode(JSONValue.self, from: text)
        #expect(
            value
                == .object([
                    "a": .null, "b": .bool(true), "c": .integer(3), "d": .integer(3), "e": .double(2.5), "f": .string("x"),
                    "g": .array([.integer(1), .string("two"), .bool(false)]), "h": .object(["i": .integer(.min)]),
                    "j": .double(18_446_744_073_709_551_616), "k": .integer(1000),
                ]))
        // Foundation's decoder, which JSONValue also supports, agrees.
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) == value)
    }

    @Test func sixtyFourBitIntegersSurviveExactly() throws {
        let numbers = Numbers(int: -5, int64: .max, uint64: .max, double: 0.1, optional: nil)
        let back = try WireJSON.decode(Numbers.self, from: WireJSON.encode(numbers))
        #expect(back == numbers)
        let big = try WireJSON.decode(Numbers.self, from: #"{"int": 1, "int64": -9223372036854775808, "uint64": 18446744073709551615, "double": 1}"#)
        #expect(big.uint64 == .max && big.int64 == .min && big.double == 1)
    }

    @Test func nestedValuesDecodeAsFoundationDecodesThem() throws {
        let value = Nested(
            name: "root \"quoted\" \\ / ✓ 😀", tags: ["a", ""], children: [Nested(name: "leaf", tags: [], children: [], blob: Data([0, 1, 255]), meta: nil)],
            blob: nil, meta: ["k": .array([.integer(1), .null])])
        let data = try WireJSON.encode(value)
        #expect(try WireJSON.decode(Nested.self, from: data) == value)
        #expect(try JSONDecoder().decode(Nested.self, from: data) == value)
        let escaped = try WireJSON.decode(String.self, from: #""a\u00e9\ud83d\ude00\n\t\/""#)
        #expect(escaped == "aé😀\n\t/")
    }

    @Test func errorsNameTheKeyPathAsBefore() {
        #expect(reason(Nested.self, #"{"tags": [], "children": []}"#)?.contains("the key 'name' is missing") == true)
        #expect(reason(Nested.self, #"{"name": "r", "tags": [], "children": [{"name": 3, "tags": [], "children": []}]}"#)?.contains("'children[0].name' should be a string") == true)
        #expect(reason(Nested.self, #"{"name": null, "tags": [], "children": []}"#)?.contains("'name' is null but should be a string") == true)
        #expect(reason(Numbers.self, #"{"int": 1.5, "int64": 1, "uint64": 1, "double": 1}"#)?.contains("'int' should be an integer") == true)
        let negative = reason(Numbers.self, #"{"int": 1, "int64": 1, "uint64": -1, "double": 1}"#)
        #expect(negative?.contains("the number -1 at 'uint64' is out of range") == true, "\(negative ?? "")")
        #expect(reason(Nested.self, #"{"name": "r", "tags": [], "children": [], "blob": "***"}"#)?.contains("'blob' is not valid") == true)
    }

    @Test func textThatIsNotJSONIsRefusedWithWhereAndWhy() {
        let cases: [(String, String)] = [
            ("", "the text is empty"),
            ("{nope", "expected a key in double quotes at line 1, column 2"),
            (#"{"a": 1,}"#, "expected a key in double quotes"),
            ("[1, 2", "the text ends inside a list"),
            (#"{"a" 1}"#, "expected ':' after the key \"a\""),
            ("01", "leading zeros"),
            ("-", "'-' must be followed by a digit"),
            ("1.", "must be followed by a digit"),
            (#""abc"#, "a string is not closed"),
            ("\"a\u{01}b\"", "control character"),
            (#""\x""#, "'\\x' is not a JSON escape"),
            (#""\ud800""#, "surrogate pair"),
            ("tru", "unexpected 't'"),
            ("{} {}", "unexpected '{' after the value"),
            ("{\n  \"a\": nul\n}", "at line 2, column 8"),
            (String(repeating: "[", count: 600) + String(repeating: "]", count: 600), "nested more than 512 levels deep"),
        ]
        for (text, expected) in cases {
            let got = reason(JSONValue.self, text)
            #expect(got?.contains("not JSON") == true, "\(text.prefix(20)): \(got ?? "accepted")")
            #expect(got?.contains(expected) == true, "\(text.prefix(20)): \(got ?? "accepted")")
        }
        let invalidUTF8 = Data([0x22, 0xC3, 0x28, 0x22])
        #expect(throws: CloudError.self) { try WireJSON.decode(String.self, from: invalidUTF8) }
    }

    @Test func numbersNoSwiftTypeHoldsAreValidJSONButOutOfRangeWhereTheyAreUsed() {
        for number in ["1e400", "-1e400", "18446744073709551616", "99999999999999999999999"] {
            let got = reason(Numbers.self, #"{"int": 1, "int64": \#(number), "uint64": 1, "double": 1}"#)
            #expect(got?.contains("the number \(number) at 'int64' is out of range") == true, "\(got ?? "accepted")")
        }
        for number in ["1e400", "-1e400"] {
            let inValue = reason(JSONValue.self, #"{"a": [1, \#(number)]}"#)
            #expect(inValue?.contains("the number \(number) at 'a[1]' is out of range") == true, "\(inValue ?? "accepted")")
        }
        #expect(reason(Numbers.self, #"{"int": 9223372036854775808, "int64": 1, "uint64": 1, "double": 1}"#)?.contains("the number 9223372036854775808 at 'int' is out of range") == true)
    }

    @Test func deepButAllowedNestingDecodes() throws {
        let text = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        var value = try WireJSON.decode(JSONValue.self, from: text)
        var depth = 0
        while case .array(let items) = value, let first = items.first {
            value = first
            depth += 1
        }
        #expect(depth == 499)
    }
}
