import SyncCore

/// A question for the room (`ask:`), as the lesson pane shows it: the class
/// predicts, then the next steps show what happens. The answer stays hidden
/// until asked for (`A`). The lesson words it (the choices lettered, the
/// answer with its reason); the pane only lays it out.
public struct LessonQuestion: Hashable, Sendable {
    public var question: String
    /// "A) Nothing", "B) Every record", …
    public var choices: [String]
    /// "B) Every record. A fetch from no token brings every record there is."
    public var answer: String

    public init(question: String, choices: [String], answer: String) {
        self.question = question
        self.choices = choices
        self.answer = answer
    }
}
