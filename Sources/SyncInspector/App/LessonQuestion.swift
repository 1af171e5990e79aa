import SyncCore

/// A question for the room (`ask:`): the class predicts, then the next
/// steps show what happens. The answer stays hidden until asked for (`A`).
public struct LessonQuestion: Hashable, Sendable {
    public var question: String
    public var choices: [String]
    /// The index of the right choice.
    public var answer: Int
    /// Why that is the answer, shown with it.
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
}
