import Foundation

/// A question for the room (`ask:`): the class predicts, then the steps
/// after it show what happens. Nothing runs; a headless run prints the
/// question with its answer.
public struct AskAction: Sendable, Equatable {
    public var question: String
    public var choices: [String]
    /// The index of the right choice in ``choices``.
    public var answer: Int
    /// Why that is the answer (`why:`).
    public var explanation: String?

    public init(question: String, choices: [String], answer: Int, explanation: String? = nil) {
        self.question = question
        self.choices = choices
        self.answer = answer
        self.explanation = explanation
    }

    /// "A", "B", … for choice `index`.
    public static func letter(_ index: Int) -> String {
        index < 26 ? String(UnicodeScalar(UInt8(65 + index))) : "\(index + 1)"
    }

    /// What goes between a choice and the reason after it: a full stop, unless the choice ends a sentence already.
    static func joining(_ choice: String) -> String {
        choice.last.map { ".!?:".contains($0) } == true ? " " : ". "
    }

    /// The question, its choices and the answer, as a transcript prints them.
    public var transcriptText: String {
        var lines = ["? " + question]
        for (index, choice) in choices.enumerated() { lines.append("  \(Self.letter(index))) \(choice)") }
        let right = choices.indices.contains(answer) ? choices[answer] : ""
        lines.append("Answer: \(Self.letter(answer))) \(right)" + (explanation.map { Self.joining(right) + $0 } ?? ""))
        return lines.joined(separator: "\n")
    }
}
