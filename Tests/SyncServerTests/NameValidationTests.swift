import Foundation
@testable import SyncServer
import SyncCore
import Testing

/// The name checks judge ASCII names by their bytes (the fast path every
/// save and every replayed record takes) exactly as Unicode's categories
/// judge them: each character alone and inside a name, ASCII or not.
@Suite struct NameValidationTests {
    /// Every ASCII character, and non-ASCII ones that are controls (U+0085,
    /// U+009F), letters (ª, é), spaces and symbols.
    static let characters: [Unicode.Scalar] = (0..<0x80).compactMap(Unicode.Scalar.init)
        + [0x85, 0x9F, 0xA0, 0xAA, 0xE9, 0x2028, 0x1F600].compactMap(Unicode.Scalar.init)

    static func names(with scalar: Unicode.Scalar) -> [String] {
        let c = String(Character(scalar))
        return [c, "a\(c)", "Note\(c)x", "\(c)9"]
    }

    func passes(_ check: (String) throws(CloudError) -> Void, _ name: String) -> Bool {
        do { try check(name); return true } catch { return false }
    }

    @Test func namesAreJudgedAsUnicodeJudgesThem() {
        for scalar in Self.characters {
            for name in Self.names(with: scalar) {
                let expected = !name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "/" }
                #expect(passes({ (n) throws(CloudError) in try Validation.checkName(n, what: "zone name") }, name) == expected, "\(name.debugDescription)")
            }
        }
    }

    @Test func recordNamesArePrintableASCII() {
        for scalar in Self.characters {
            for name in Self.names(with: scalar) {
                let expected = name.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.generalCategory != .control } && !name.hasPrefix("_")
                #expect(passes(Validation.checkRecordName, name) == expected, "\(name.debugDescription)")
            }
        }
    }

    @Test func fieldNamesAreASCIILettersDigitsAndUnderscores() {
        for scalar in Self.characters {
            for name in Self.names(with: scalar) {
                let expected = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
                    && !name.hasPrefix("_") && !(name.unicodeScalars.first.map { ("0"..."9").contains($0) } ?? true)
                #expect(passes(Validation.checkFieldName, name) == expected, "\(name.debugDescription)")
            }
        }
        // The empty name, and the longest one against one byte more.
        let lengths = ["", "a" + String(repeating: "_", count: 254), "a" + String(repeating: "_", count: 255)].map {
            passes(Validation.checkFieldName, $0)
        }
        #expect(lengths == [false, true, false])
    }
}
