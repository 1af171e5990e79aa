import SyncCore
import SyncClient
import SyncWorlds

/// A check of a lesson, as the end screen lists it.
public struct LessonCheck: Hashable, Sendable {
    /// Index of the `expect` step.
    public var stepIndex: Int
    public var name: String
    public var line: Int
    /// What differed; `nil` when the check held.
    public var failure: String?

    public init(stepIndex: Int, name: String, line: Int, failure: String?) {
        self.stepIndex = stepIndex
        self.name = name
        self.line = line
        self.failure = failure
    }
}
