import Testing
@testable import SyncInspector

@Suite("Form")
struct FormTests {
    func zoneForm() -> FormState {
        FormState(title: "New zone", fields: [FormField(label: "Name"), FormField(label: "Owner")])
    }

    @Test func typingInsertsAtTheCursor() {
        var form = zoneForm()
        #expect(form.handle(.character("a")) == .changed)
        #expect(form.handle(.character("b")) == .changed)
        #expect(form.handle(.left) == .changed)
        #expect(form.handle(.character("日")) == .changed)
        #expect(form.fields[0].text == "a日b")
        #expect(form.fields[0].cursor == 2)
        #expect(form.values == ["a日b", ""])
    }

    @Test func backspaceAndDeleteRemoveAroundTheCursor() {
        var form = FormState(title: "t", fields: [FormField(label: "Name", text: "abcd")])
        #expect(form.handle(.backspace) == .changed)
        #expect(form.fields[0].text == "abc")
        #expect(form.handle(.home) == .changed)
        #expect(form.handle(.backspace) == .unchanged)
        #expect(form.handle(.delete) == .changed)
        #expect(form.fields[0].text == "bc")
        #expect(form.fields[0].cursor == 0)
        #expect(form.handle(.end) == .changed)
        #expect(form.handle(.delete) == .unchanged)
        #expect(form.handle(.right) == .unchanged)
    }

    @Test func ctrlUAndCtrlKCutBeforeAndAfterTheCursor() {
        var form = FormState(title: "t", fields: [FormField(label: "Name", text: "hello world")])
        for _ in 0..<5 { _ = form.handle(.left) }
        #expect(form.handle(.control("k")) == .changed)
        #expect(form.fields[0].text == "hello ")
        #expect(form.handle(.left) == .changed)
        #expect(form.handle(.control("u")) == .changed)
        #expect(form.fields[0].text == " ")
        #expect(form.fields[0].cursor == 0)
    }

    @Test func cursorSetOutOfRangeIsClampedInsteadOfFailing() {
        var form = FormState(title: "t", fields: [FormField(label: "Name", text: "ab")])
        form.fields[0].cursor = 99
        #expect(form.handle(.character("c")) == .changed)
        #expect(form.fields[0].text == "abc")
        form.fields[0].cursor = -5
        #expect(form.handle(.character("x")) == .changed)
        #expect(form.fields[0].text == "xabc")
    }

    @Test func tabAndShiftTabMoveBetweenFieldsAndWrap() {
        var form = zoneForm()
        #expect(form.handle(.tab) == .changed)
        #expect(form.focus == 1)
        _ = form.handle(.character("x"))
        #expect(form.values == ["", "x"])
        #expect(form.handle(.tab) == .changed)
        #expect(form.focus == 0)
        #expect(form.handle(.backTab) == .changed)
        #expect(form.focus == 1)
    }

    @Test func enterSubmitsEscCancelsAndOtherKeysAreLeftToTheApp() {
        var form = zoneForm()
        #expect(form.handle(.enter) == .submitted)
        #expect(form.handle(.escape) == .cancelled)
        #expect(form.handle(.ctrlC) == .unhandled)
        #expect(form.handle(.function(1)) == .unhandled)
        #expect(form.handle(.resize) == .unhandled)
    }

    @Test func editingClearsTheMessageButMovingDoesNot() {
        var form = zoneForm()
        form.message = "A zone with this name already exists."
        _ = form.handle(.tab)
        #expect(form.message != nil)
        _ = form.handle(.character("z"))
        #expect(form.message == nil)
        #expect(form.value(of: "Owner") == "z")
    }

    @Test func rendersACentredModalWithCursor() {
        var form = zoneForm()
        for character in "zone-1" { _ = form.handle(.character(character)) }
        var buffer = CellBuffer(width: 80, height: 24)
        buffer.fill(buffer.bounds, character: ".")
        FormView().render(form, into: &buffer, screen: buffer.bounds)

        // 36 columns of content (the hint is the widest line), one space of
        // padding each side, and the border: 40 wide, 7 high, centred.
        let box = Array(buffer.lines()[8...14]).map { String($0.dropFirst(20).prefix(40)) }
        func line(_ content: String) -> String { "║ " + TextWidth.pad(content, to: 36) + " ║" }
        #expect(box == [
            "╔═ New zone ═══════════════════════════╗",
            line(""),
            line("Name  zone-1"),
            line("Owner"),
            line(""),
            line("Enter submit · Tab next · Esc cancel"),
            "╚══════════════════════════════════════╝",
        ])
        #expect(buffer.lines()[7] == String(repeating: ".", count: 80))
        #expect(buffer.lines()[15] == String(repeating: ".", count: 80))
        // The cursor is the reverse-video cell after "zone-1" in the focused field.
        let theme = Theme.monochrome
        #expect(buffer[x: 34, y: 10].style == theme.cursor)
        #expect(buffer[x: 33, y: 10].style == theme.focusedFormField)
        #expect(buffer[x: 28, y: 11].style == theme.formField)
    }

    @Test func messageIsShownAboveTheHint() {
        var form = zoneForm()
        form.message = "Name is required."
        var buffer = CellBuffer(width: 80, height: 24)
        FormView().render(form, into: &buffer, screen: buffer.bounds)
        let text = buffer.render()
        #expect(text.contains("Name is required."))
        let lines = buffer.lines()
        let messageRow = lines.firstIndex { $0.contains("Name is required.") }
        let hintRow = lines.firstIndex { $0.contains("Enter submit") }
        #expect(messageRow.map { $0 + 1 } == hintRow)
    }

    @Test func longTextScrollsSoTheCursorStaysVisible() {
        let text = String(repeating: "abcdefghij", count: 4)
        let form = FormState(title: "t", fields: [FormField(label: "Name", text: text)])
        var buffer = CellBuffer(width: 40, height: 10)
        FormView().render(form, into: &buffer, screen: buffer.bounds)
        // The field starts at column 7 and is 31 wide: the last 30 characters
        // and the cursor after them fit.
        let row = buffer.lines()[4]
        #expect(row == "║ Name " + String(text.dropFirst(10)) + "  ║")
        #expect(buffer[x: 37, y: 4].style == Theme.monochrome.cursor)
    }

    @Test func placeholderShowsInAnEmptyField() throws {
        let form = FormState(title: "t", fields: [FormField(label: "Zone", placeholder: "e.g. photos")])
        var buffer = CellBuffer(width: 80, height: 24)
        FormView().render(form, into: &buffer, screen: buffer.bounds)
        // A bracketed hint after the cursor cell, dim and not bold: it does not read as a value.
        let line = try #require(buffer.lines().first { $0.contains("Zone") })
        #expect(line.contains("Zone  ‹e.g. photos›"), "\(line)")
        let x = try #require(line.firstIndex(of: "‹").map { line.distance(from: line.startIndex, to: $0) })
        let y = try #require(buffer.lines().firstIndex(of: line))
        let hint: Style = buffer[x: x, y: y].style
        #expect(hint.attributes.contains(Attributes.dim) && !hint.attributes.contains(Attributes.bold), "\(hint)")
        #expect(buffer[x: x - 1, y: y].style == Theme.monochrome.cursor)
        // The value is still empty: submitting does not take the hint.
        #expect(form.value(of: "Zone") == "")
    }

    @Test func aPlaceholderWithoutExampleWordsGetsThem() {
        #expect(FormView.hint(for: "note-1") == "‹e.g. note-1›")
        #expect(FormView.hint(for: "e.g. photos") == "‹e.g. photos›")
    }
}
