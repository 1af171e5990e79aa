import SyncCore

/// The lesson pane's text at a width, line by line: the narration (its
/// file's line breaks unfolded, wrapped to the pane, so it reflows on a
/// resize), a question for the room and, once asked for, its answer, the
/// presenter's note (presenter layout only), then what the step did and a
/// check that did not hold. The view draws a window of it; the keys scroll
/// it (``LessonModeState/narrativeScroll``). Pure.
public enum LessonText {
    public struct Line: Hashable, Sendable {
        public enum Kind: Hashable, Sendable {
            case narration, question, choice, answer, note, step, failure, blank
        }

        public var text: String
        public var kind: Kind
    }

    public static func lines(_ lesson: LessonStatus, width: Int, presenting: Bool, answerShown: Bool) -> [Line] {
        guard width > 0 else { return [] }
        var lines: [Line] = []
        func add(_ text: String, _ kind: Line.Kind, indent: String = "") {
            for line in TextWrap.wrap(text, width: max(1, width - TextWidth.of(indent))) {
                lines.append(Line(text: indent + line, kind: kind))
            }
        }
        func gap() {
            if let last = lines.last, last.kind != .blank { lines.append(Line(text: "", kind: .blank)) }
        }
        if let narrative = lesson.narrative {
            for (index, paragraph) in TextWrap.unfold(narrative).components(separatedBy: "\n\n").enumerated() {
                // Presenting, paragraphs breathe; in the panes, every row counts.
                if index > 0 && presenting { gap() }
                add(paragraph, .narration)
            }
        }
        if let question = lesson.question {
            gap()
            add("? " + TextWrap.unfold(question.question), .question)
            for choice in question.choices { add(choice, .choice, indent: "  ") }
            if answerShown {
                add("Answer: " + TextWrap.unfold(question.answer), .answer)
            } else {
                add("A shows the answer; the next steps show it happen.", .note)
            }
        }
        if presenting, let note = lesson.note {
            gap()
            add("Note (only you see this): " + TextWrap.unfold(note), .note)
        }
        if !lesson.lastStep.isEmpty || lesson.failure != nil {
            if !lines.isEmpty { gap() }
            for step in lesson.lastStep { add(step, .step, indent: "  ") }
            if let failure = lesson.failure { add("✗ " + failure, .failure) }
        }
        while lines.last?.kind == .blank { lines.removeLast() }
        return lines
    }
}
