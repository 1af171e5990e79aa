import SyncCore

/// Lesson mode's drawing: the highlight of what the last step changed, the
/// outline of the steps, and the end-of-lesson summary.
extension InspectorView {
    /// The word on the border of a pane the last step changed.
    static let highlightMark = " ◆ changed "
    /// The smallest screen the presenter layout draws on (a projector's large font leaves few cells).
    static let presenterMinimumSize = Size(width: 40, height: 12)

    /// The lesson pane: a window of ``LessonText`` (scrolled by j/k while
    /// it has focus), where the window is on the border, and on its last row
    /// what Enter does next.
    func drawLesson(_ lesson: LessonStatus, state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        let mode = state.lessonMode
        let focused = mode.narrativeFocused
        let title = "Lesson · step \(lesson.stepsRun) of \(lesson.stepCount) · \(lesson.title)"
        let inner = Panel(title: title, focused: focused, theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let enterWorksHere = focused || state.pane != .events
        let footer: (String, Style) = lesson.nextStep.map {
            enterWorksHere ? ("Enter: \($0)", theme.helpKey) : ("E: back to the lesson, then Enter: \($0)", theme.muted)
        } ?? ("Lesson over: b starts again · t steps · q quits", theme.success)
        let text = Self.lessonTextArea(inner, presenting: mode.presenting)
        let lines = LessonText.lines(lesson, width: text.width, presenting: mode.presenting, answerShown: mode.answerShown)
        let rows = max(0, text.height - 1)
        let scroll = Self.clampedScroll(mode.narrativeScroll, lines: lines.count, rows: rows)
        for (index, line) in lines.dropFirst(scroll).prefix(rows).enumerated() {
            buffer.write(TextWidth.truncate(line.text, to: text.width), x: text.x, y: text.y + index, style: style(of: line.kind), clip: text)
        }
        buffer.write(TextWidth.truncate(footer.0, to: text.width), x: text.x, y: inner.maxY - 1, style: footer.1, clip: inner)
        // Where the window is, on the bottom border: more below, or scrolled down.
        var marks: [String] = []
        if scroll > 0 { marks.append("↑ k") }
        if scroll + rows < lines.count { marks.append("↓ j: \(Plural.count(lines.count - scroll - rows, "more line"))") }
        guard !marks.isEmpty else { return }
        let mark = " " + marks.joined(separator: " · ") + " "
        let width = TextWidth.of(mark)
        guard width + 4 <= area.width, area.height >= 2 else { return }
        buffer.write(mark, x: area.maxX - 2 - width, y: area.maxY - 1, style: focused ? theme.focusedBorder : theme.border, clip: area)
    }

    /// The lesson text's area inside the pane: a margin when presenting.
    static func lessonTextArea(_ inner: Rect, presenting: Bool) -> Rect {
        presenting && inner.width >= 30 ? inner.inset(left: 1, right: 1) : inner
    }

    /// The first line shown: never past the last window of `lines`.
    static func clampedScroll(_ scroll: Int, lines: Int, rows: Int) -> Int {
        max(0, min(scroll, lines - rows))
    }

    private func style(of kind: LessonText.Line.Kind) -> Style {
        switch kind {
        case .narration: theme.title
        case .question: theme.helpKey.adding(.bold)
        case .choice, .step, .blank: theme.normal
        case .answer: theme.success
        case .note: theme.muted
        case .failure: theme.error
        }
    }

    /// The code pane: the code the step stands for; where the step shows a
    /// mistake, the wrong code above the fixed one (side by side when wide).
    func drawCode(_ code: LessonCode, into buffer: inout CellBuffer, area: Rect) {
        let inner = Panel(title: "Code · \(code.title)", focused: false, theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        func block(_ heading: String?, _ text: String, _ headingStyle: Style, in rect: Rect) {
            var lines: [(String, Style)] = heading.map { [($0, headingStyle)] } ?? []
            lines += Self.codeLines(text, width: rect.width).map { ($0, theme.normal) }
            while lines.last?.0.isEmpty == true { lines.removeLast() }
            if lines.count > rect.height, rect.height > 0 {
                lines = Array(lines.prefix(rect.height - 1)) + [("… \(Plural.count(lines.count - rect.height + 1, "more line"))", theme.muted)]
            }
            for (index, (line, style)) in lines.prefix(rect.height).enumerated() {
                buffer.write(TextWidth.truncate(line, to: rect.width), x: rect.x, y: rect.y + index, style: style, clip: rect)
            }
        }
        guard let wrong = code.wrong else {
            block(nil, code.fixed, theme.normal, in: inner)
            return
        }
        let wrongHeading = "✗ The mistake"
        let fixedHeading = "✓ The fix"
        if inner.width >= 100 {
            let half = inner.width / 2
            let left = Rect(x: inner.x, y: inner.y, width: half - 1, height: inner.height)
            let right = Rect(x: inner.x + half + 1, y: inner.y, width: inner.width - half - 1, height: inner.height)
            block(wrongHeading, wrong, theme.error, in: left)
            block(fixedHeading, code.fixed, theme.success, in: right)
            return
        }
        let wrongLines = Self.codeLines(wrong, width: inner.width).count + 1
        let fixedLines = Self.codeLines(code.fixed, width: inner.width).count + 1
        // Each gets its share of the rows, by length; both show some code.
        let fair = inner.height * wrongLines / max(1, wrongLines + fixedLines)
        let top = wrongLines + fixedLines <= inner.height ? wrongLines : min(inner.height - 3, max(3, fair))
        block(wrongHeading, wrong, theme.error, in: Rect(x: inner.x, y: inner.y, width: inner.width, height: top))
        block(fixedHeading, code.fixed, theme.success, in: Rect(x: inner.x, y: inner.y + top, width: inner.width, height: inner.height - top))
    }

    /// Code lines at a width: a longer line breaks between words, its rest
    /// indented four more than the line, so nothing is cut off.
    static func codeLines(_ text: String, width: Int) -> [String] {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = String(line.prefix { $0 == " " })
            var rest = Substring(line)
            var prefix = ""
            while TextWidth.of(prefix) + TextWidth.of(String(rest)) > width, width > prefix.count + 8 {
                let room = width - prefix.count
                // Break at the last space that fits, else inside the word.
                var cut = rest.startIndex
                var used = 0
                var lastSpace: Substring.Index?
                for index in rest.indices {
                    used += TextWidth.of(rest[index])
                    if used > room { break }
                    if rest[index] == " ", index > rest.startIndex, rest[rest.index(before: index)] != " " { lastSpace = index }
                    cut = rest.index(after: index)
                }
                let end = lastSpace ?? cut
                out.append(prefix + rest[..<end])
                rest = rest[end...].drop { $0 == " " }
                prefix = indent + "    "
            }
            out.append(prefix + rest)
        }
        return out
    }

    /// The event log beside a lesson, when it is narrow and not focused:
    /// each line wrapped whole (none cut), the newest at the bottom. E (or
    /// Tab to it) opens it full width, to scroll and filter.
    func drawWrappedEvents(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        let inner = Panel(title: EventLog.title(state.eventLog, width: area.width), focused: false, theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let events = state.snapshot.events
        let lines = EventLog.lines(events, state: state.eventLog)
        // The last row says how to see the rest, where there is room.
        let hint = inner.height >= 6 ? 1 : 0
        let room = inner.height - hint
        var rows: [(String, Style)] = []
        var index = lines.count - 1
        let devices = state.snapshot.devices
        while index >= 0 && rows.count < room {
            let line = lines[index]
            let event = events[line.first]
            let style: Style = switch event.kind {
            case .failed: theme.error
            case .action: theme.normal
            default: InspectorFaults.isFault(event) ? theme.warning : (EventCategory.of(event) == .error ? theme.error : theme.muted)
            }
            let wrapped = TextWrap.wrap(EventLog.text(line, events: events, devices: devices), width: max(1, inner.width - 2))
            let block = wrapped.enumerated().map { ($0.offset == 0 ? $0.element : "  " + $0.element, style) }
            rows.insert(contentsOf: block, at: 0)
            index -= 1
        }
        if rows.isEmpty { rows = [("(nothing yet)", theme.muted)] }
        let shown = rows.suffix(room)
        for (offset, (text, style)) in shown.enumerated() {
            buffer.write(TextWidth.truncate(text, to: inner.width), x: inner.x, y: inner.y + offset, style: style, clip: inner)
        }
        if hint > 0 {
            buffer.write(TextWidth.truncate("E: the whole log, full width ▸", to: inner.width), x: inner.x, y: inner.maxY - 1, style: theme.muted, clip: inner)
        }
    }

    func drawLessonHighlights(_ state: InspectorState, into buffer: inout CellBuffer, layout: InspectorLayout) {
        guard state.lessonMode.highlightUntil != nil else { return }
        for pane in LessonPane.allCases where state.lessonMode.highlighted.contains(pane) {
            let area: Rect? = pane.inspectorPane.map { layout.rect(of: $0) } ?? layout.events
            guard let area, area.width > 20, area.height >= 2 else { continue }
            let style = theme.warning.adding(.bold)
            // The border in the highlight style, and a word at its top right.
            buffer.updateStyle(in: Rect(x: area.x, y: area.y, width: area.width, height: 1)) { $0 = style }
            buffer.updateStyle(in: Rect(x: area.x, y: area.maxY - 1, width: area.width, height: 1)) { $0 = style }
            let mark = Self.highlightMark
            buffer.write(mark, x: area.maxX - 1 - TextWidth.of(mark), y: area.y, style: style.adding(.reverse), clip: area)
        }
    }

    func drawLessonOverlays(_ state: InspectorState, into buffer: inout CellBuffer) {
        guard let lesson = state.snapshot.lesson else { return }
        if let selection = state.lessonMode.outlineSelection {
            drawOutline(lesson, selection: selection, into: &buffer)
        } else if state.lessonMode.showsSummary {
            drawSummary(lesson, into: &buffer)
        }
    }

    /// Every step, one line each: ✓ run, ▶ the latest step run, the selection highlighted.
    private func drawOutline(_ lesson: LessonStatus, selection: Int, into buffer: inout CellBuffer) {
        let box = buffer.bounds.centered(width: min(buffer.width - 2, 100), height: buffer.height - 2)
        let inner = Panel(title: "Steps of \(lesson.title)", focused: true, theme: theme).render(into: &buffer, area: box)
        buffer.fill(inner, style: theme.normal)
        let content = inner.inset(left: 1, right: 1)
        guard content.height >= 2 else { return }
        let rows = content.height - 1
        let top = max(0, min(selection - rows / 2, lesson.outline.count - rows))
        for (offset, index) in (top..<min(lesson.outline.count, top + rows)).enumerated() {
            let marker = index == lesson.stepsRun - 1 ? "▶" : (index < lesson.stepsRun ? "✓" : " ")
            let failed = lesson.checks.contains { $0.stepIndex == index && $0.failure != nil }
            let number = String(index + 1)
            let pointer = index == selection ? "›" : " "
            let text = "\(marker)\(pointer)\(String(repeating: " ", count: max(0, 3 - number.count)))\(number)  \(lesson.outline[index])"
            var style = failed ? theme.error : (index < lesson.stepsRun ? theme.normal : theme.muted)
            if index == selection { style = theme.selection }
            let row = Rect(x: content.x, y: content.y + offset, width: content.width, height: 1)
            if index == selection { buffer.fill(row, style: style) }
            buffer.write(TextWidth.truncate(failed ? text.replacingPrefix(marker, with: "✗") : text, to: content.width), x: content.x, y: row.y, style: style, clip: row)
        }
        buffer.write(
            TextWidth.truncate("j/k choose · Enter: go to that step (the world is rebuilt up to it) · Esc closes", to: content.width),
            x: content.x, y: content.maxY - 1, style: theme.muted, clip: content)
    }

    /// The end screen: how many checks held, what differed in the others.
    private func drawSummary(_ lesson: LessonStatus, into buffer: inout CellBuffer) {
        let width = min(buffer.width - 4, 90)
        let passed = lesson.checks.filter { $0.failure == nil }.count
        let failed = lesson.checks.filter { $0.failure != nil }
        var lines: [(String, Style)] = []
        let wrapWidth = max(1, width - 4)
        if failed.isEmpty {
            lines.append((passed == 1 ? "✓ The check held." : "✓ All \(passed) checks held.", theme.success))
        } else {
            lines.append(("\(passed) of \(Plural.count(lesson.checks.count, "check")) held; \(failed.count) did not:", theme.error))
            for check in failed {
                for (offset, line) in TextWrap.wrap("✗ step \(check.stepIndex + 1) (line \(check.line)) \(check.name): \(check.failure ?? "")", width: wrapWidth).enumerated() {
                    lines.append(((offset == 0 ? "" : "  ") + line, theme.error))
                }
            }
        }
        lines.append(("", theme.normal))
        lines.append(("b or Enter: start again · t: jump to a step · Esc: look around · q: quit", theme.helpKey))
        let height = min(buffer.height - 2, lines.count + 4)
        let box = buffer.bounds.centered(width: width, height: height)
        let inner = Panel(title: "Lesson complete · \(lesson.title)", focused: true, theme: theme).render(into: &buffer, area: box)
        buffer.fill(inner, style: theme.normal)
        let content = inner.inset(left: 1, right: 1)
        guard !content.isEmpty else { return }
        let shown = lines.count > content.height
            ? Array(lines.prefix(content.height - 1)) + [lines[lines.count - 1]]
            : lines
        for (index, (text, style)) in shown.enumerated() {
            buffer.write(TextWidth.truncate(text, to: content.width), x: content.x, y: content.y + index, style: style, clip: content)
        }
    }
}
