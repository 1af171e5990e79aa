import Testing
@testable import SyncInspector

@Suite("Display width")
struct TextWidthTests {
    @Test func asciiLettersTakeOneColumn() {
        #expect(TextWidth.of("hello") == 5)
        #expect(TextWidth.of(Character("a")) == 1)
    }

    @Test func cjkAndFullwidthCharactersTakeTwoColumns() {
        #expect(TextWidth.of(Character("漢")) == 2)
        #expect(TextWidth.of(Character("あ")) == 2)
        #expect(TextWidth.of(Character("한")) == 2)
        #expect(TextWidth.of(Character("Ａ")) == 2)  // fullwidth A
        #expect(TextWidth.of("日本語") == 6)
    }

    @Test func emojiTakeTwoColumnsIncludingSequences() {
        #expect(TextWidth.of(Character("😀")) == 2)
        #expect(TextWidth.of(Character("👍🏽")) == 2)  // with skin tone modifier
        #expect(TextWidth.of(Character("👩‍💻")) == 2)  // ZWJ sequence
        #expect(TextWidth.of(Character("🇫🇷")) == 2)  // flag
        #expect(TextWidth.of(Character("❤️")) == 2)  // text-default heart made emoji by VS16
        #expect(TextWidth.of(Character("❤")) == 1)  // without VS16: text presentation
    }

    @Test func combiningMarksJoinTheirBaseCharacter() {
        #expect(TextWidth.of(Character("e\u{301}")) == 1)
        #expect(TextWidth.of("cafe\u{301}") == 4)
    }

    @Test func controlAndZeroWidthCharactersTakeNoColumns() {
        #expect(TextWidth.of(Character("\u{7}")) == 0)
        #expect(TextWidth.of(Character("\u{200B}")) == 0)
        #expect(TextWidth.of(Unicode.Scalar(0x1B)) == -1)
    }

    @Test func ambiguousWidthSymbolsCountAsOne() {
        #expect(TextWidth.of("┌─┐") == 3)
        #expect(TextWidth.of("×…") == 2)
    }

    @Test func truncateAddsEllipsisAndNeverSplitsAWideCharacter() {
        #expect(TextWidth.truncate("abcdef", to: 4) == "abc…")
        #expect(TextWidth.truncate("abc", to: 3) == "abc")
        // "日本語" needs 6 columns; in 4 there is room for 日 (2) + … (1), not 本.
        #expect(TextWidth.truncate("日本語", to: 4) == "日…")
        #expect(TextWidth.truncate("日本語", to: 4, ellipsis: false) == "日本")
        #expect(TextWidth.truncate("日本語", to: 3, ellipsis: false) == "日")
        #expect(TextWidth.truncate("abc", to: 0) == "")
    }

    @Test func padAlignsToTheExactWidth() {
        #expect(TextWidth.pad("ab", to: 5) == "ab   ")
        #expect(TextWidth.pad("ab", to: 5, alignment: .right) == "   ab")
        #expect(TextWidth.pad("ab", to: 6, alignment: .center) == "  ab  ")
        #expect(TextWidth.of(TextWidth.pad("日本語", to: 5)) == 5)
    }

    /// A string's width is its characters' widths added up, whether or not
    /// it takes the printable-ASCII path (controls, DEL and a combining mark
    /// after ASCII letters must leave it).
    @Test func aStringIsAsWideAsItsCharacters() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", " ", "~", "\t", "\u{7F}", "\u{1B}", "\u{301}", "é", "漢", "…"]
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(TextWidth.of(text) == text.reduce(0) { $0 + TextWidth.of($1) }, "\(text.unicodeScalars.map { $0.value })")
        }
        #expect(TextWidth.of("a\tb") == 2)
        #expect(TextWidth.of("e\u{301}") == 1)
    }
}
