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

    /// The choices as read out: "A) Nothing", "B) Every record".
    public var letteredChoices: [String] {
        choices.enumerated().map { "\(Self.letter($0.offset))) \($0.element)" }
    }

    /// The answer as read out, with its reason: "B) Every record. A fetch from no token…".
    public var answerText: String {
        let right = choices.indices.contains(answer) ? choices[answer] : ""
        // A full stop between the choice and the reason, unless the choice ends a sentence already.
        let joining = right.last.map { ".!?:".contains($0) } == true ? " " : ". "
        return "\(Self.letter(answer))) \(right)" + (explanation.map { joining + $0 } ?? "")
    }

    /// The question, its choices and the answer, as a transcript prints them.
    public var transcriptText: String {
        (["? " + question] + letteredChoices.map { "  " + $0 } + ["Answer: " + answerText]).joined(separator: "\n")
    }
}
