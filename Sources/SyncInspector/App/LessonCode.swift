import SyncCore

/// The client code a lesson step stands for, in Swift with CloudKit's own
/// API: generated from the step where the mapping is mechanical, or written
/// in the lesson (`code:`). Where the step shows a mistake, the wrong code
/// comes with the fixed one.
///
/// The inspector's side of SyncScenario's `StepCode`: the inspector links no
/// scenario module (see the architecture map), so `LessonSession` hands the
/// code over in this value, as it hands the lesson over in ``LessonStatus``.
public struct LessonCode: Hashable, Sendable {
    /// What the code is about, for the pane's title ("CKFetchRecordZoneChangesOperation").
    public var title: String
    /// The code to write.
    public var fixed: String
    /// The mistake the step shows, when it shows one.
    public var wrong: String?

    public init(title: String, fixed: String, wrong: String? = nil) {
        self.title = title
        self.fixed = fixed
        self.wrong = wrong
    }
}
