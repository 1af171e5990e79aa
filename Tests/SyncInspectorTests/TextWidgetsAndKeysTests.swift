import Testing
@testable import SyncInspector

@Suite("Status line, wrapping, paragraphs, small screens, themes, key codes")
struct TextWidgetsAndKeysTests {
    @Test func statusLineKeepsTheRightTextAndCutsTheLeft() {
        var buffer = CellBuffer(width: 20, height: 2)
        StatusLine(left: "Zone: default", right: "sim 12:00").render(into: &buffer, area: buffer.bounds.row(1))
        #expect(buffer.lines()[1] == "Zone: def… sim 12:00")
        #expect(buffer[x: 0, y: 1].style == Theme.monochrome.statusLine)
        #expect(buffer.lines()[0] == String(repeating: " ", count: 20))
    }

    @Test func statusLineFillsTheWholeRow() {
        var buffer = CellBuffer(width: 12, height: 1)
        StatusLine(left: "ok").render(into: &buffer, area: buffer.bounds)
        #expect(buffer.lines() == ["ok          "])
        #expect(buffer[x: 11, y: 0].style == Theme.monochrome.statusLine)
    }

    @Test func wrapBreaksBetweenWords() {
        #expect(TextWrap.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TextWrap.wrap("a  b", width: 10) == ["a b"])
    }

    @Test func wrapBreaksLongWordsAndKeepsWideCharactersWhole() {
        #expect(TextWrap.wrap("abcdefghijkl", width: 5) == ["abcde", "fghij", "kl"])
        #expect(TextWrap.wrap("日本語テキスト", width: 5) == ["日本", "語テ", "キス", "ト"])
    }

    @Test func wrapKeepsNewlinesAndEmptyLines() {
        #expect(TextWrap.wrap("a\n\nb", width: 5) == ["a", "", "b"])
        #expect(TextWrap.wrap("anything", width: 0) == [])
    }

    @Test func paragraphScrollsAndClips() {
        var buffer = CellBuffer(width: 6, height: 2)
        Paragraph("one two three four", scroll: 1).render(into: &buffer, area: buffer.bounds)
        #expect(buffer.lines() == ["two   ", "three "])
    }
}

@Suite("Too small and themes")
struct TooSmallAndThemeTests {
    @Test func messageAt79By23IsOneCentredLine() {
        let buffer = TooSmallScreen.render(size: Size(width: 79, height: 23))
        let message = "Enlarge the window to at least 80×24 (now 79×23)"
        let lines = buffer.lines()
        #expect(lines.count == 23)
        #expect(lines[11] == String(repeating: " ", count: 15) + message + String(repeating: " ", count: 16))
        #expect(lines.enumerated().allSatisfy { $0.offset == 11 || $0.element.allSatisfy { $0 == " " } })
    }

    @Test func messageAt40By10IsWrappedAndCentred() {
        let buffer = TooSmallScreen.render(size: Size(width: 40, height: 10))
        let lines = buffer.lines()
        #expect(lines[4] == "  Enlarge the window to at least 80×24  ")
        #expect(lines[5] == String(repeating: " ", count: 14) + "(now 40×10)" + String(repeating: " ", count: 15))
        #expect(buffer.render().split(separator: "\n", omittingEmptySubsequences: true).count == 2)
    }

    @Test func tinyAndEmptyScreensDoNotFail() {
        #expect(TooSmallScreen.render(size: Size(width: 0, height: 0)).lines() == [])
        let tiny = TooSmallScreen.render(size: Size(width: 3, height: 1))
        #expect(tiny.lines().count == 1)
    }

    @Test func noColorSelectsTheMonochromeTheme() {
        #expect(Theme.resolve(environment: ["NO_COLOR": "1"], terminalHasColors: true) == .monochrome)
        #expect(Theme.resolve(environment: [:], terminalHasColors: true) == .colored)
        #expect(Theme.resolve(environment: ["NO_COLOR": ""], terminalHasColors: true) == .colored)
        #expect(Theme.resolve(environment: [:], terminalHasColors: false) == .monochrome)
    }

    @Test func monochromeThemeUsesNoColoursAndKeepsRolesDistinct() {
        let theme = Theme.monochrome
        let styles = Mirror(reflecting: theme).children.compactMap { $0.value as? Style }
        #expect(styles.count > 10)
        #expect(styles.allSatisfy { $0.foreground == .default && $0.background == .default })
        #expect(!theme.usesColor)
        #expect(theme.selection != theme.normal)
        #expect(theme.focusedBorder != theme.border)
        #expect(theme.cursor != theme.focusedFormField)
    }

    @Test func screenDrawnWithTheMonochromeThemeHasNoColours() {
        var buffer = CellBuffer(width: 30, height: 6)
        let halves = buffer.bounds.splitColumns([.fill, .fill])
        Panel(title: "A", focused: true, theme: .monochrome).render(into: &buffer, area: halves[0])
        Table(columns: [TableColumn("x")], theme: .monochrome).render(
            into: &buffer, area: Panel.inner(halves[1]), rows: ArrayRowProvider([TableRow(["1"])]),
            state: TableState())
        #expect(buffer.cells.allSatisfy { $0.style.foreground == .default && $0.style.background == .default })
    }
}

@Suite("Key events")
struct KeyEventTests {
    @Test func controlBytesBecomeNamedKeys() {
        #expect(KeyEvent.fromCharacterCode(0x03) == .ctrlC)
        #expect(KeyEvent.fromCharacterCode(0x0D) == .enter)
        #expect(KeyEvent.fromCharacterCode(0x0A) == .enter)
        #expect(KeyEvent.fromCharacterCode(0x09) == .tab)
        #expect(KeyEvent.fromCharacterCode(0x1B) == .escape)
        #expect(KeyEvent.fromCharacterCode(0x7F) == .backspace)
        #expect(KeyEvent.fromCharacterCode(0x01) == .control("a"))
    }

    @Test func printableCodesBecomeCharactersIncludingNonASCII() {
        #expect(KeyEvent.fromCharacterCode(0x6A) == .character("j"))
        #expect(KeyEvent.fromCharacterCode(0xE9) == .character("é"))
        #expect(KeyEvent.fromCharacterCode(0x4E2D) == .character("中"))
        #expect(KeyEvent.fromCharacterCode(0x1F600) == .character("😀"))
        #expect(KeyEvent.fromCharacterCode(0x1C) == .unknown(0x1C))
    }

    @Test func cursesKeyCodesMapToKeyEvents() {
        // ncurses codes (octal in curses.h): KEY_UP 0403, KEY_NPAGE 0522, KEY_BTAB 0541, KEY_RESIZE 0632, KEY_F(5) 0415.
        #expect(NcursesBackend.functionKey(0o403) == .up)
        #expect(NcursesBackend.functionKey(0o522) == .pageDown)
        #expect(NcursesBackend.functionKey(0o541) == .backTab)
        #expect(NcursesBackend.functionKey(0o632) == .resize)
        #expect(NcursesBackend.functionKey(0o415) == .function(5))
        #expect(NcursesBackend.functionKey(0o777) == .unknown(0o777))
    }
}
