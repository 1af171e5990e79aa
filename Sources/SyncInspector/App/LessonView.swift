import SyncCore

/// Lesson mode's drawing: the highlight of what the last step changed, the
/// outline of the steps, and the end-of-lesson summary.
extension InspectorView {
    /// The word on the border of a pane the last step changed.
    static let highlightMark = " ◆ changed "

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
